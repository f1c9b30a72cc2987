import { join } from 'node:path';
import type { CommandEntry, ExitCode } from './command-module';
import { commandModules } from './commands/index';
import { runCli } from './run-cli';
import { captureStream } from './testing-streams';

export interface XsbRun {
  code: ExitCode;
  stdout: string;
  stderr: string;
}

export interface RunXsbOptions {
  /** The working folder (default: this process's); HOME and the cache live inside it unless `env` says otherwise. */
  cwd?: string;
  /** Variables on top of `HOME=<cwd>` and `XDG_CACHE_HOME=<cwd>/cache`; nothing else of this process leaks in. */
  env?: Record<string, string>;
  /** The command groups to register (default: every `xsb` command). */
  modules?: readonly CommandEntry[];
}

/** The arguments after `xsb`: an array, or a command line split at single spaces when none holds one. */
export type XsbArgs = string[] | string;

/**
 * Runs `xsb args` in-process with capturing streams, as a user would from `cwd`, and returns the exit
 * code and everything printed. The environment is sealed so a developer's config and cache never
 * change a test's outcome.
 */
export async function runXsb(args: XsbArgs, options: RunXsbOptions = {}): Promise<XsbRun> {
  const argv = typeof args === 'string' ? args.split(' ') : args;
  const cwd = options.cwd ?? process.cwd();
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await runCli(
    argv,
    { stdout, stderr, cwd, env: { HOME: cwd, XDG_CACHE_HOME: join(cwd, 'cache'), ...options.env } },
    options.modules ?? commandModules,
  );
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
