/**
 * The server the load bench drives, in its own process(es) so the client's work never shares its event
 * loop: `node --import tsx bench/bench-server.ts <dataDir> <tokens> <requests per minute> [processes]`
 * prints `listening <url>`. With processes > 1 this script is the cluster's primary and, forked again,
 * each member (as `xsb serve --processes N` runs it). It logs every request to stderr as `xsb serve` does
 * (batched per turn of the event loop), so the figures include the access log.
 */
import { createBatchedLineWriter } from '@xsb/core';
import { parseTokenList, serveApiProcesses } from '../src/index';

const [dataDir, tokens, perMinute, processesArgument] = process.argv.slice(2);
const logWriter = createBatchedLineWriter((text) => process.stderr.write(text));
const log = (line: string) => logWriter.line(`[xsb serve] ${new Date().toISOString()} ${line}`);
const served = await serveApiProcesses({
  processes: Number(processesArgument ?? '1'),
  dataDir: dataDir!,
  port: 0,
  tokens: parseTokenList(tokens),
  env: {},
  workers: 2,
  rateLimitPerMinute: Number(perMinute),
  log,
});
if (served.role !== 'member') process.stdout.write(`listening ${served.url}\n`);
process.once('SIGTERM', () => {
  void served.shutdown().then(() => {
    logWriter.flush();
    process.exit(0);
  });
});
