/**
 * The server the load bench drives, in its own process so the client's work never shares its event
 * loop: `node --import tsx bench/bench-server.ts <dataDir> <tokens> <requests per minute>` prints
 * `listening <url>`.
 */
import { parseTokenList, startApiServer } from '../src/index';

const [dataDir, tokens, perMinute] = process.argv.slice(2);
const server = await startApiServer({
  dataDir: dataDir!,
  port: 0,
  tokens: parseTokenList(tokens),
  env: {},
  workers: 2,
  rateLimitPerMinute: Number(perMinute),
});
process.stdout.write(`listening ${server.url}\n`);
process.once('SIGTERM', () => {
  void server.shutdown().then(() => process.exit(0));
});
