import type { DrainResult } from '@xsb/jobs';
import { apiClusterIndex, reportClusterStop, startApiCluster } from './api-process-cluster';
import { checkServerSecurity, type StartApiServerOptions, startApiServer } from './start-api-server';

/** What `serveApiProcesses` started in this process. */
export type ServedApi =
  /** A lone server (`processes` 1). */
  | { role: 'single'; url: string; shutdown(): Promise<DrainResult>; closed: Promise<DrainResult> }
  /** The supervisor of a cluster; `closed` rejects when it stopped on a crash loop. */
  | {
      role: 'primary';
      url: string;
      processes: number;
      shutdown(): Promise<DrainResult>;
      closed: Promise<DrainResult>;
    }
  /** One member of a cluster; `shutdown` drains it and reports the drain to the primary. */
  | { role: 'member'; index: number; shutdown(): Promise<DrainResult> };

/**
 * `xsb serve [--processes N]` in one call, whichever process runs it: with N > 1 the primary forks N
 * members that run the same script again, where this call starts a member's server (job workers only
 * in member 0). The caller wires signals to `shutdown`.
 */
export async function serveApiProcesses(
  options: StartApiServerOptions & { processes: number },
): Promise<ServedApi> {
  const { processes, ...serverOptions } = options;
  const member = apiClusterIndex();
  if (processes > 1 && member === undefined) {
    checkServerSecurity({ ...options, host: options.host ?? '127.0.0.1' });
    const cluster = await startApiCluster(options);
    return {
      role: 'primary',
      url: cluster.url,
      processes,
      shutdown: cluster.shutdown,
      closed: cluster.closed,
    };
  }
  if (member === undefined) {
    const server = await startApiServer(serverOptions);
    return { role: 'single', url: server.url, shutdown: server.shutdown, closed: server.closed };
  }
  const server = await startApiServer({
    ...serverOptions,
    ...(member === 0 ? {} : { workers: 0 }),
    logFields: { ...serverOptions.logFields, process: member },
  });
  return {
    role: 'member',
    index: member,
    shutdown: async () => {
      const result = await server.shutdown();
      await reportClusterStop(result);
      return result;
    },
  };
}
