import { describeError, exitCodeFor, isXsbError } from '@xsb/core';
import { CommanderError } from 'commander';
import { buildProgram } from './build-program';
import { type CliIo, createCliContext } from './cli-context';
import type { CommandModule, ExitCode } from './command-module';
import { commandModules } from './commands/index';
import { setActionExitCode } from './exit-code';

/**
 * Runs `xsb` with argv (without node and script) and returns the exit code instead of exiting, so
 * tests drive the real CLI in-process. User errors print `ERROR: …` with no stack unless --debug.
 */
export async function runCli(
  argv: string[],
  io: Partial<CliIo> = {},
  modules: CommandModule[] = commandModules,
): Promise<ExitCode> {
  const fullIo: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  const debug = argv.includes('--debug') || fullIo.env.XSB_DEBUG === '1';
  let program: ReturnType<typeof buildProgram> | undefined;
  const context = createCliContext(fullIo, () => (program?.opts() ?? {}) as { config?: string });
  program = buildProgram(context, modules);
  try {
    const exitCode = await setActionExitCode(() => program!.parseAsync(argv, { from: 'user' }));
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync') return 0;
      // Commander already printed `ERROR: …` through outputError.
      return 2;
    }
    fullIo.stderr.write(`ERROR: ${describeError(error)}\n`);
    if (debug && error instanceof Error && error.stack) fullIo.stderr.write(`${error.stack}\n`);
    else if (!isXsbError(error))
      fullIo.stderr.write('(this looks like a bug in xsb; rerun with --debug for details)\n');
    return exitCodeFor(error);
  }
}
