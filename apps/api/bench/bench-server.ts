/**
 * The server the load bench drives, in its own process(es) so the client's work never shares its event
 * loop: `node --import tsx bench/bench-server.ts <dataDir> <tokens> <requests per minute> [processes]`
 * prints `listening <url>`. With processes > 1 this script is the cluster's primary and, forked again,
 * each member (as `xsb serve --processes N` runs it). It logs every request to stderr as `xsb serve` does
 * (batched per turn of the event loop), so the figures include the access log.
 */
import { createBatchedLineWriter } from '@xsb/core';
import {
  apiClusterIndex,
  parseTokenList,
  reportClusterStop,
  startApiCluster,
  startApiServer,
} from '../src/index';

const [dataDir, tokens, perMinute, processesArgument] = process.argv.slice(2);
const processes = Number(processesArgument ?? '1');
const member = apiClusterIndex();
const logWriter = createBatchedLineWriter((text) => process.stderr.write(text));
const log = (line: string) =>
  logWriter.line(
    `[xsb serve] ${new Date().toISOString()} ${member === undefined ? '' : `process ${member}: `}${line}`,
  );
if (processes > 1 && member === undefined) {
  const cluster = await startApiCluster({ processes, log });
  process.stdout.write(`listening ${cluster.url}\n`);
  process.once('SIGTERM', () => {
    void cluster.shutdown().then(() => process.exit(0));
  });
} else {
  const server = await startApiServer({
    dataDir: dataDir!,
    port: 0,
    tokens: parseTokenList(tokens),
    env: {},
    workers: member === undefined || member === 0 ? 2 : 0,
    rateLimitPerMinute: Number(perMinute),
    log,
  });
  if (member === undefined) process.stdout.write(`listening ${server.url}\n`);
  process.once('SIGTERM', () => {
    void server.shutdown().then(async (result) => {
      if (member !== undefined) await reportClusterStop(result);
      logWriter.flush();
      process.exit(0);
    });
  });
}
