import { writeFileSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from './run-cli';

export interface XsbOnPath {
  /** The folder holding `xsb`: put it first on PATH. */
  bin: string;
  /** How many commands ran. */
  calls(): number;
  close(): Promise<void>;
}

/**
 * The `xsb` a shell script finds on PATH: a plain Node client (no tsx, ~50 ms) that hands its argv,
 * working folder and environment to this process, where the real CLI (`runCli`) runs them and streams
 * the output and exit code back. A script of forty commands then loads the CLI's packages once instead
 * of forty times (~5 s of CPU each through tsx); spawned end-to-end runs are tested elsewhere
 * (testing-processes). Commands run one at a time, in the order they arrive.
 */
export async function serveXsbOnPath(dir: string): Promise<XsbOnPath> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const socketPath = join(dir, 'xsb.sock');
  let calls = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const server = createServer((socket) => {
    let request = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      request += chunk;
      const end = request.indexOf('\n');
      if (end < 0) return;
      calls += 1;
      const { argv, cwd, env } = JSON.parse(request.slice(0, end)) as {
        argv: string[];
        cwd: string;
        env: NodeJS.ProcessEnv;
      };
      queue = queue.then(() => serveOne(socket, argv, cwd, env));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  const client = join(bin, 'xsb');
  writeFileSync(client, clientScript(socketPath));
  await chmod(client, 0o755);
  return {
    bin,
    calls: () => calls,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}

/** Runs one command with streams that forward to the client as JSON lines; the last line is the code. */
async function serveOne(socket: Socket, argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const forward = (key: 'o' | 'e') =>
    new Writable({
      write(chunk, _encoding, done) {
        // A line written after the command returned (a late progress tick) has no one left to read it.
        if (socket.writableEnded || socket.destroyed) return done();
        // The socket keeps the order and buffers; nothing waits here, so all is sent before the code.
        socket.write(`${JSON.stringify({ [key]: String(chunk) })}\n`);
        done();
      },
    });
  let code: number;
  try {
    code = await runCli(argv, { stdout: forward('o'), stderr: forward('e'), cwd, env });
  } catch (error) {
    socket.write(`${JSON.stringify({ e: `xsb test shim: ${String(error)}\n` })}\n`);
    code = 70;
  }
  await new Promise<void>((resolve) => socket.end(`${JSON.stringify({ code })}\n`, () => resolve()));
}

/** The client: CommonJS, no dependencies, exits with the code the CLI returned. */
function clientScript(socketPath: string): string {
  return `#!${process.execPath}
'use strict';
const socket = require('node:net').connect(${JSON.stringify(socketPath)});
let buffer = '';
socket.setEncoding('utf8');
socket.on('connect', () => {
  socket.write(JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), env: process.env }) + '\\n');
});
socket.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.o !== undefined) process.stdout.write(message.o);
    if (message.e !== undefined) process.stderr.write(message.e);
    if (message.code !== undefined) process.exitCode = message.code;
  }
});
socket.on('error', (error) => {
  process.stderr.write('xsb test shim: ' + error.message + '\\n');
  process.exitCode = 70;
});
`;
}
