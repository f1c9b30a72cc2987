export type { CliIo } from './cli-context';
export type { ExitCode } from './command-module';
export { runCli } from './run-cli';
