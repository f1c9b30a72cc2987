import { Writable } from 'node:stream';

/** A writable that keeps what was written, for driving the CLI in-process in tests. */
export function captureStream(isTTY = false): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join('') });
}
