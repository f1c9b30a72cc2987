import { XSB_VERSION } from '@xsb/core';
import { Command } from 'commander';
import type { CliContext } from './cli-context';
import type { CommandModule } from './command-module';

/** Builds the `xsb` program: global flags, then every registered subcommand group. */
export function buildProgram(context: CliContext, modules: CommandModule[]): Command {
  const program = new Command('xsb');
  program
    .description(
      'Benchmark AI slide-deck generators: X+SlidesBench pipeline, PresentBench rubric, bench harness.',
    )
    .version(XSB_VERSION, '-V, --version', 'print the xsb version')
    .option('--debug', 'print stack traces for errors')
    .option('--config <file>', 'config file (default: xsb.config.json|yaml in the current folder)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
      outputError: (text, write) => write(`ERROR: ${text.replace(/^error:\s*/i, '')}`),
    });
  for (const module of modules) module.register(program, context);
  return program;
}
