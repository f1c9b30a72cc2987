import type { Writable } from 'node:stream';

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Ctrl-C (SIGINT) or SIGTERM: kill the child processes (LibreOffice) and remove the scratch folders
 * that `@xsb/core`'s cleanup registry holds, say so on stderr and exit 128 + the signal number (130,
 * 143). A command that listens for the signal itself (`xsb serve`, `xsb view` and `xsb worker` drain; a
 * command generator's row ends its own process group, then raises the signal again) handles it first.
 */
export function installInterruptHandler(stderr: Writable = process.stderr): void {
  let interrupting = false;
  const onSignal = (signal: HandledSignal) => {
    if (process.listenerCount(signal) > 1 || interrupting) return;
    interrupting = true;
    void interrupt(signal, stderr);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

async function interrupt(signal: HandledSignal, stderr: Writable): Promise<never> {
  // Loaded lazily like everywhere in the CLI; nothing is registered before @xsb/core is loaded.
  const { cleanUpNow, plural } = await import('@xsb/core');
  const report = cleanUpNow();
  const done = [
    ...(report.processes.length > 0 ? [`killed ${report.processes.join(', ')}`] : []),
    ...(report.scratchDirs.length > 0
      ? [`removed ${plural(report.scratchDirs.length, 'scratch folder')}`]
      : []),
  ];
  stderr.write(`interrupted: ${signal}${done.length > 0 ? `; ${done.join('; ')}` : ''}\n`);
  process.exit(SIGNAL_EXIT_CODES[signal]);
}
