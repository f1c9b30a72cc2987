import { plural } from '@xsb/core';
import type { CommandModule } from '../command-module';
import { jobProcessSettings, LEASE_HELP, untilSignal } from './serve-command';

interface WorkerFlags {
  data?: string;
  queue?: string;
  workers?: string;
  drainTimeout?: string;
  lease?: string;
}

/** `xsb worker`: runs the queue's jobs without serving HTTP (on any machine that sees the data folder). */
export const workerCommand: CommandModule = {
  name: 'worker',
  register(program, context) {
    program
      .command('worker')
      .description('run queued API jobs without serving HTTP (several machines: --queue redis://HOST:PORT)')
      .option('--data <dir>', 'data folder shared with the servers (default: config dataDir)')
      .option('--queue <url>', 'redis://HOST:PORT (default: the SQLite store in the data folder)')
      .option('--workers <n>', 'jobs run at once (default config api.workers, 2)')
      .option(
        '--drain-timeout <s>',
        'on SIGTERM, seconds to let running jobs finish before they are queued again (default 30)',
      )
      .option('--lease <s>', LEASE_HELP)
      .action(async (flags: WorkerFlags) => {
        const settings = jobProcessSettings(context, flags, 1);
        const { createJsonLogger, heartbeatForLease, openJobStore, startJobWorker } = await import(
          '@xsb/jobs'
        );
        // One JSON object per line on stderr, like xsb serve's log.
        const logger = createJsonLogger((line) => context.warn(line), { role: 'worker' });
        const store = openJobStore({
          dataDir: settings.dataDir,
          ...(settings.queue ? { queue: settings.queue } : {}),
          leaseMs: settings.leaseMs,
        });
        await store.check();
        const runner = startJobWorker({
          ...settings,
          store,
          concurrency: settings.workers,
          heartbeatMs: heartbeatForLease(settings.leaseMs),
          log: (line) => logger.info(line),
        });
        context.print(
          `xsb worker ${runner.worker}: running ${plural(settings.workers, 'job')} at once from the ${store.backend} store`,
        );
        const result = await untilSignal(async () => {
          const drained = await runner.drain(settings.drainTimeoutMs);
          await store.close();
          return drained;
        });
        context.print(
          `xsb worker: stopped (${plural(result.finished, 'job')} finished while draining, ${result.requeued.length} queued again)`,
        );
      });
  },
};
