/**
 * A load generator with almost no cost of its own: keep-alive sockets that each write one prebuilt
 * GET and read one response. Node's http client spends ~0.15 ms of the bench process's event loop per
 * request, so 200 of them at once add ~30 ms to the last request's latency that no server causes
 * (measured here: a bare node:http server answers 200 concurrent requests at p99 70 ms through it,
 * 38 ms through this). Real clients sit on other machines; this measures the server.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  ms: number;
}

export class RawBurstClient {
  private constructor(private readonly sockets: Socket[]) {}

  static async open(url: string, connections: number): Promise<RawBurstClient> {
    const target = new URL(url);
    const sockets = await Promise.all(
      Array.from(
        { length: connections },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(Number(target.port), target.hostname, () => resolve(socket));
            socket.setNoDelay(true);
            socket.once('error', reject);
          }),
      ),
    );
    return new RawBurstClient(sockets);
  }

  /** One GET per socket, all written at once; resolves with every answer's status and latency. */
  burst(pathFor: (index: number) => string, token: string): Promise<RawAnswer[]> {
    return Promise.all(
      this.sockets.map((socket, index) =>
        askOnce(
          socket,
          `GET ${pathFor(index)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: keep-alive\r\n\r\n`,
        ),
      ),
    );
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

function askOnce(socket: Socket, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = text.slice(0, headEnd);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const body = text.slice(headEnd + 4);
      const complete = length ? body.length >= Number(length[1]) : body.endsWith('0\r\n\r\n');
      if (!complete) return;
      socket.off('data', onData);
      socket.off('error', reject);
      resolve({ status: Number(head.split(' ')[1]), ms: performance.now() - started });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(request);
  });
}
