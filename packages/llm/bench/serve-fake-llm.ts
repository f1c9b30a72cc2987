// Runs the fake server in its own process for the throughput bench, as a real provider would be:
// prints its URL on the first stdout line and serves until the parent kills it.
import { startFakeLlmServer } from '../src/fake-llm-server';

const server = await startFakeLlmServer({
  latencyMs: Number(process.argv[2] ?? 0),
  handler: () => ({ text: 'answer' }),
});
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
