import type { CommandModule } from '../command-module';
import { configCommand } from './config-command';

/** Every subcommand group of `xsb`, in the order `--help` lists them. Later stages add theirs here. */
export const commandModules: CommandModule[] = [configCommand];
