export { type CliContext, type CliIo, createCliContext } from './cli-context';
export type { CommandEntry, CommandModule, ExitCode, LazyCommandModule } from './command-module';
export { commandModules } from './commands/index';
export { reportExitCode } from './exit-code';
export { runCli, targetCommand } from './run-cli';
