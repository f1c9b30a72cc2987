export { type CliContext, type CliIo, createCliContext } from './cli-context';
export type { CommandModule, ExitCode } from './command-module';
export { commandModules } from './commands/index';
export { reportExitCode } from './exit-code';
export { runCli } from './run-cli';
