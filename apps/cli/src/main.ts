#!/usr/bin/env node
import { installInterruptHandler } from './interrupt-handler';
import { runCli } from './run-cli';

// `xsb … | head` closes stdout early: that is the reader's choice, not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

installInterruptHandler();
const code = await runCli(process.argv.slice(2));
process.exitCode = code;
