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

/**
 * A command group whose code (and with it every stage package it imports) is loaded only when one of
 * its commands runs or its own help is asked for. `commands` are the top-level commands it registers,
 * with the descriptions `xsb --help` lists without loading it (a test keeps them equal to the real ones).
 */
export interface LazyCommandModule {
  name: string;
  commands: ReadonlyArray<{ name: string; description: string }>;
  load(): Promise<CommandModule>;
}

/** What the runner accepts: a group to register as it is, or one to load when it is used. */
export type CommandEntry = CommandModule | LazyCommandModule;

export const isLazyCommandModule = (entry: CommandEntry): entry is LazyCommandModule => 'load' in entry;

/** Wraps an action so its returned exit code reaches the runner. */
export type ExitCode = 0 | 1 | 2;
