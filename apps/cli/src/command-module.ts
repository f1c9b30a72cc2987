import type { Command } from 'commander';
import type { CliContext } from './cli-context';

/** A subcommand group; its actions report exit code 1 (some rows failed) or throw (usage/config → 2). */
export interface CommandModule {
  name: string;
  register(program: Command, context: CliContext): void;
}

/** A group loaded only when one of its `commands` runs; `xsb --help` lists their descriptions without loading it. */
export interface LazyCommandModule {
  name: string;
  commands: ReadonlyArray<{ name: string; description: string }>;
  load(): Promise<CommandModule>;
}

/** What the runner accepts: a group to register as it is, or one to load when it is used. */
export type CommandEntry = CommandModule | LazyCommandModule;

export const isLazyCommandModule = (entry: CommandEntry): entry is LazyCommandModule => 'load' in entry;

export type ExitCode = 0 | 1 | 2;
