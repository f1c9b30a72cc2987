import type { CommandModule } from '../command-module';
import { configCommand } from './config-command';
import { decksCommand } from './decks-command';
import { demoCommand } from './demo-command';
import { evalCommand } from './eval-command';
import { llmCommand } from './llm-command';
import { metricsCommand } from './metrics-command';
import { probesCommand } from './probes-command';
import { rubricCommand } from './rubric-command';
import { serveCommand } from './serve-command';
import { sourcesCommand } from './sources-command';
import { weightsCommand } from './weights-command';
import { workerCommand } from './worker-command';

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
  llmCommand,
  configCommand,
  serveCommand,
  workerCommand,
];
