import type { CommandModule } from '../command-module';
import { benchCommand } from './bench/bench-command';
import { configCommand } from './config-command';
import { decksCommand } from './decks-command';
import { demoCommand } from './demo-command';
import { evalCommand } from './eval-command';
import { llmCommand } from './llm-command';
import { metricsCommand } from './metrics-command';
import { probesCommand } from './probes-command';
import { reportCommand } from './report-command';
import { rubricCommand } from './rubric-command';
import { sourcesCommand } from './sources-command';
import { viewCommand } from './view-command';
import { weightsCommand } from './weights-command';

/** Every subcommand group of `xsb`, in the order `--help` lists them: the main job, the stages in pipeline order, then tools. */
export const commandModules: CommandModule[] = [
  demoCommand,
  sourcesCommand,
  probesCommand,
  weightsCommand,
  decksCommand,
  evalCommand,
  metricsCommand,
  rubricCommand,
  benchCommand,
  reportCommand,
  viewCommand,
  llmCommand,
  configCommand,
];
