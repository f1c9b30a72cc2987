import { CommanderError } from 'commander';
import { buildProgram } from './build-program';
import type { CliIo } from './cli-context';
import { type CommandEntry, type ExitCode, isLazyCommandModule } from './command-module';
import { commandModules } from './commands/index';
import { setActionExitCode } from './exit-code';

/** Global options that take a value (`--config <file>`): their value is not the command name. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(['--config']);

/** The top-level command the arguments name (`xsb --config c.json eval …`, `xsb help eval` → `eval`). */
export function targetCommand(argv: readonly string[]): string | undefined {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i += 1;
      continue;
    }
    words.push(arg);
    if (arg !== 'help') break;
  }
  return words[0] === 'help' ? words[1] : words[0];
}

/** Loads the lazy group that owns the target command; every other group stays a name in the help. */
async function resolveModules(
  modules: readonly CommandEntry[],
  target: string | undefined,
): Promise<CommandEntry[]> {
  return Promise.all(
    modules.map((module) =>
      isLazyCommandModule(module) && target !== undefined && module.commands.some((c) => c.name === target)
        ? module.load()
        : module,
    ),
  );
}

/**
 * Runs `xsb` and returns the exit code instead of exiting, so tests drive the real CLI in-process. Only
 * the group the arguments name is loaded: `xsb --help` loads no package (@xsb/core's schemas are slow).
 */
export async function runCli(
  argv: string[],
  io: Partial<CliIo> = {},
  modules: readonly CommandEntry[] = commandModules,
): Promise<ExitCode> {
  const fullIo: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  const debug = argv.includes('--debug') || fullIo.env.XSB_DEBUG === '1';
  let program: ReturnType<typeof buildProgram> | undefined;
  try {
    const resolved = await resolveModules(modules, targetCommand(argv));
    const wantsVersion = argv.includes('-V') || argv.includes('--version');
    const registers = resolved.some((module) => !isLazyCommandModule(module));
    // The context (config, progress) and the version come from @xsb/core: load it only when used.
    const { createCliContext } = registers ? await import('./cli-context') : { createCliContext: undefined };
    const context = createCliContext?.(fullIo, () => (program?.opts() ?? {}) as { config?: string });
    const version = wantsVersion ? (await import('@xsb/core')).XSB_VERSION : '';
    program = buildProgram(fullIo, resolved, context, version);
    const exitCode = await setActionExitCode(() => program!.parseAsync(argv, { from: 'user' }));
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync') return 0;
      // Commander already printed `ERROR: …` through outputError.
      return 2;
    }
    const { exitCodeFor, isXsbError } = await import('@xsb/core');
    const { describeCliError } = await import('./cli-advice');
    fullIo.stderr.write(`ERROR: ${describeCliError(error, fullIo.cwd)}\n`);
    if (debug && error instanceof Error && error.stack) fullIo.stderr.write(`${error.stack}\n`);
    else if (!isXsbError(error))
      fullIo.stderr.write('(this looks like a bug in xsb; rerun with --debug for details)\n');
    return exitCodeFor(error);
  }
}
