import { resolve } from 'node:path';
import { createBatchedLineWriter, plural, UsageError } from '@xsb/core';
import type { ServedApi } from '@xsb/server';
import type { CliContext } from '../cli-context';
import { configFlags, integerFlag, portFlag, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';

interface ServeFlags {
  data?: string;
  port?: string;
  host?: string;
  queue?: string;
  workers?: string;
  processes?: string;
  drainTimeout?: string;
  lease?: string;
  bodyLimit?: string;
  rateLimit?: string;
  authRateLimit?: string;
  insecureLocal?: boolean;
}

/** Settings `xsb serve` and `xsb worker` share: data folder, queue, workers, drain, judge settings. */
export function jobProcessSettings(
  context: CliContext,
  flags: { data?: string; queue?: string; workers?: string; drainTimeout?: string; lease?: string },
  minWorkers: number,
) {
  const { config, env } = context.loadConfig(configFlags({ data: flags.data }));
  const dataDir = requireExistingPath(
    'data folder',
    resolve(context.io.cwd, config.dataDir),
    'pass --data with a folder prepared by xsb sources/probes (or xsb demo)',
  );
  const queue = flags.queue ?? config.api.queue;
  if (queue !== undefined && !/^rediss?:\/\//.test(queue))
    throw new UsageError(`--queue must be redis://HOST:PORT, got ${JSON.stringify(queue)}`);
  return {
    config,
    dataDir,
    ...(queue ? { queue } : {}),
    workers: integerFlag('--workers', flags.workers, config.api.workers, minWorkers),
    drainTimeoutMs: 1000 * integerFlag('--drain-timeout', flags.drainTimeout, config.api.drainTimeoutS, 0),
    leaseMs: 1000 * integerFlag('--lease', flags.lease, 30, 1),
    // What the job workers judge with.
    env,
    cacheDir: resolve(context.io.cwd, config.cacheDir),
    noCache: config.noCache,
    providers: config.providers,
  };
}

export const LEASE_HELP =
  'seconds a job stays with a worker that stopped renewing it (killed, machine lost) before another takes it (default 30)';

/**
 * Runs until SIGTERM or SIGINT, then `shutdown`. A cluster member (`holdRepeats`) ignores a second
 * signal: Ctrl-C reaches the whole process group and the primary then forwards a SIGTERM of its own.
 */
export async function untilSignal<T>(
  shutdown: () => Promise<T>,
  options: { holdRepeats?: boolean } = {},
): Promise<T> {
  return new Promise<T>((resolveDone, reject) => {
    const ignore = () => {};
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      if (options.holdRepeats) {
        process.on('SIGTERM', ignore);
        process.on('SIGINT', ignore);
      }
      shutdown().then(resolveDone, reject);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** `xsb serve`: the HTTP API with its job workers (see docs/api.md). */
export const serveCommand: CommandModule = {
  name: 'serve',
  register(program, context) {
    program
      .command('serve')
      .description('the HTTP API: post decks, get scores back from durable jobs (docs/api.md)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--port <n>', 'port (default 8787; 0 picks a free one)')
      .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
      .option(
        '--queue <url>',
        'redis://HOST:PORT: jobs on BullMQ, shared with other serve/worker processes (default: SQLite in the data folder)',
      )
      .option(
        '--workers <n>',
        'jobs this process runs at once (default config api.workers, 2; 0 serves HTTP only)',
      )
      .option(
        '--processes <n>',
        'HTTP processes sharing the port, the first running the job workers (default config api.processes, 1)',
      )
      .option(
        '--drain-timeout <s>',
        'on SIGTERM, seconds to let running jobs finish before they are queued again (default 30)',
      )
      .option('--lease <s>', LEASE_HELP)
      .option('--body-limit <MB>', 'largest request body in MB (default 100)')
      .option('--rate-limit <n>', 'requests per minute and token (default 600)')
      .option(
        '--auth-rate-limit <n>',
        'failed authentications per minute and client address before 429 (default 30)',
      )
      .option('--insecure-local', 'serve without tokens (only on a loopback host)')
      .action((flags: ServeFlags) => serve(context, flags));
  },
};

/** The flags and config as `serveApiProcesses` options, tokens and log aside; usage errors before any work. */
function serveOptions(context: CliContext, flags: ServeFlags) {
  const { config, ...settings } = jobProcessSettings(context, flags, 0);
  const port = portFlag(flags.port, 8787);
  const bodyLimitMb = integerFlag('--body-limit', flags.bodyLimit, config.api.bodyLimitMb, 1);
  return {
    config,
    options: {
      processes: integerFlag('--processes', flags.processes, config.api.processes, 1),
      ...settings,
      host: flags.host ?? '127.0.0.1',
      port,
      insecureLocal: flags.insecureLocal ?? false,
      bodyLimitBytes: bodyLimitMb * 1_000_000,
      rateLimitPerMinute: integerFlag('--rate-limit', flags.rateLimit, config.api.rateLimitPerMinute, 1),
      authFailuresPerMinute: integerFlag('--auth-rate-limit', flags.authRateLimit, 30, 1),
      ...(config.api.systems ? { systems: config.api.systems } : {}),
    },
  };
}

async function serve(context: CliContext, flags: ServeFlags): Promise<void> {
  const { config, options } = serveOptions(context, flags);
  // Loaded here, not at the top: the server's dependencies (hono, BullMQ) would slow every other command's start.
  const server = await import('@xsb/server');
  // A line per request: batched, or a busy server spends more on writing its log than on answering.
  const logWriter = createBatchedLineWriter((text) => context.io.stderr.write(text));
  try {
    const tokens = server.mergeTokens(
      server.parseTokenList(options.env[server.TOKENS_VARIABLE]),
      server.tokensFromConfig(config.api.tokens),
    );
    // Each line is one JSON object (pino), written as it comes.
    const served = await server.serveApiProcesses({
      ...options,
      tokens,
      log: (line) => logWriter.line(line),
    });
    await serveUntilStopped(context, served, options.processes);
  } finally {
    logWriter.flush();
  }
}

/** Prints where it listens, waits for a signal (or a cluster's crash loop), prints how the drain went. */
async function serveUntilStopped(context: CliContext, served: ServedApi, processes: number): Promise<void> {
  if (served.role === 'member') {
    await untilSignal(served.shutdown, { holdRepeats: true });
    return;
  }
  context.print(
    `xsb serve: listening on ${served.url} (${served.role === 'primary' ? `${processes} processes; ` : ''}OpenAPI at ${served.url}/openapi.json)`,
  );
  // A crash loop ends a cluster without a signal: its `closed` then rejects with the reason.
  const result =
    served.role === 'primary'
      ? await Promise.race([untilSignal(served.shutdown), served.closed])
      : await untilSignal(served.shutdown);
  context.print(
    `xsb serve: stopped (${plural(result.finished, 'job')} finished while draining, ${result.requeued.length} queued again)`,
  );
}
