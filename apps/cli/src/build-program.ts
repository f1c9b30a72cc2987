import { Command } from 'commander';
import type { CliContext, CliIo } from './cli-context';
import { type CommandEntry, isLazyCommandModule } from './command-module';

/** The `xsb` program; a group still lazy is listed by name and description only, its code never loaded. */
export function buildProgram(
  io: Pick<CliIo, 'stdout' | 'stderr'>,
  modules: readonly CommandEntry[],
  context: CliContext | undefined,
  version = '',
): Command {
  const program = new Command('xsb');
  program
    .description(
      'Benchmark AI slide-deck generators: X+SlidesBench pipeline, PresentBench rubric, bench harness.',
    )
    .version(version, '-V, --version', 'print the xsb version')
    .option('--debug', 'print stack traces for errors')
    .option('--config <file>', 'config file (default: xsb.config.json|yaml in the current folder)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`ERROR: ${text.replace(/^error:\s*/i, '')}`),
    });
  for (const module of modules) {
    if (isLazyCommandModule(module)) {
      for (const command of module.commands) program.command(command.name).description(command.description);
      continue;
    }
    if (!context) throw new Error(`command group "${module.name}" registered without a context`);
    module.register(program, context);
  }
  return program;
}
