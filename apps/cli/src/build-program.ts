import { XSB_VERSION } from '@xsb/core';
import { Command } from 'commander';
import type { CliContext } from './cli-context';
import { type CommandEntry, isLazyCommandModule } from './command-module';

/**
 * Builds the `xsb` program: global flags, then every subcommand group. A group still lazy (not the
 * one the command line asks for) is listed by name and description only; its code is never loaded.
 */
export function buildProgram(context: CliContext, modules: readonly CommandEntry[]): Command {
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
  for (const module of modules) {
    if (!isLazyCommandModule(module)) module.register(program, context);
    else
      for (const command of module.commands) program.command(command.name).description(command.description);
  }
  return program;
}
