import type { Command } from 'commander';
import type { CliContext } from './cli-context';

/**
 * A subcommand group. Each registers itself on the program; its actions return an exit code
 * (0 all rows done, 1 some rows failed) or throw (mapped by the runner: usage/config → 2).
 */
export interface CommandModule {
  name: string;
  register(program: Command, context: CliContext): void;
}

/** Wraps an action so its returned exit code reaches the runner. */
export type ExitCode = 0 | 1 | 2;
