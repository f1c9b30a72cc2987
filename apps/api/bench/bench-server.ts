/**
 * The server the load bench drives, in its own process(es) so the client's work never shares its event
 * loop: `node --import tsx bench/bench-server.ts <dataDir> <tokens> <requests per minute> [processes]`
 * prints `listening <url>`. With processes > 1 this script is the cluster's primary and, forked again,
 * each member (as `xsb serve --processes N` runs it).
 */
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
if (processes > 1 && member === undefined) {
  const cluster = await startApiCluster({ processes });
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
  });
  if (member === undefined) process.stdout.write(`listening ${server.url}\n`);
  process.once('SIGTERM', () => {
    void server.shutdown().then(async (result) => {
      if (member !== undefined) await reportClusterStop(result);
      process.exit(0);
    });
  });
}
