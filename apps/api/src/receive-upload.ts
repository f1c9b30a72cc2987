import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import Busboy from '@fastify/busboy';
import { isDiskFull } from '@xsb/core';
import { ApiHttpError, diskFullError, ServerFault, toApiError } from './api-error';

export interface ReceivedUpload {
  fields: Map<string, string[]>;
  /** The deck, complete on disk in the temp folder; the caller moves or removes it. */
  file: { path: string; filename: string | null; bytes: number };
}

export interface ReceiveUploadOptions {
  tmpDir: string;
  limitBytes: number;
  fileField: string;
  fields: readonly string[];
}

const tooLarge = (limit: number) =>
  new ApiHttpError(413, 'payload_too_large', `the request body is larger than the limit of ${limit} bytes`, {
    Connection: 'close',
  });

/**
 * Streams a `multipart/form-data` body: the one file part (`fileField`) goes straight to a temp file,
 * the named text fields are collected, and every byte is counted, so a body past `limitBytes` stops at
 * the limit (413) however it was framed (a lying or absent Content-Length). hono's `parseBody` would
 * hold the whole body in memory; `@fastify/busboy` parses as the bytes arrive. On any refusal, a
 * malformed body or a client that hangs up, the temp file is removed before the promise settles.
 */
export async function receiveUpload(
  request: Request,
  options: ReceiveUploadOptions,
): Promise<ReceivedUpload> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType))
    throw new ApiHttpError(
      415,
      'unsupported_media_type',
      `send multipart/form-data with the deck in the "${options.fileField}" field (got ${JSON.stringify(contentType.split(';')[0] || 'no Content-Type')})`,
    );
  if (!request.body) throw new ApiHttpError(400, 'malformed_multipart', 'the request has no body');
  try {
    await mkdir(options.tmpDir, { recursive: true });
  } catch (error) {
    throw isDiskFull(error) ? diskFullError() : new ServerFault(error);
  }
  const fields = new Map<string, string[]>();
  let file: ReceivedUpload['file'] | undefined;
  let written: Promise<void> | undefined;
  let failure: ApiHttpError | undefined;
  let serverFault: ServerFault | undefined;
  const fail = (error: ApiHttpError) => {
    failure ??= error;
  };

  const body = Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>);
  let received = 0;
  const parser = Busboy({
    headers: { 'content-type': contentType },
    limits: { fileSize: options.limitBytes, files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 },
  });
  parser.on('file', (name, stream, filename) => {
    if (name !== options.fileField || file) {
      fail(
        new ApiHttpError(
          400,
          'invalid_field',
          file
            ? 'only one deck per request'
            : `field "${name}": unknown file field (send the deck as "${options.fileField}")`,
        ),
      );
      stream.resume();
      return;
    }
    const path = join(options.tmpDir, `${randomUUID()}.part`);
    file = { path, filename: filename ? filename.slice(0, 255) : null, bytes: 0 };
    const target = file;
    stream.on('data', (chunk: Buffer) => {
      target.bytes += chunk.length;
    });
    stream.on('limit', () => fail(tooLarge(options.limitBytes)));
    const sink = createWriteStream(path, { flags: 'wx' });
    // A write that fails (a full disk) ends the request at once: the body is not read to its end first.
    sink.on('error', (error: unknown) => {
      // Only the file system's own errors (they name a syscall): a body that breaks off reaches the
      // sink too, as the reason pipeline destroyed it, and is the client's fault, answered below.
      if (typeof (error as { syscall?: unknown }).syscall !== 'string') return;
      const refusal = isDiskFull(error) ? diskFullError() : new ServerFault(error);
      fail(refusal instanceof ApiHttpError ? refusal : toApiError(refusal));
      serverFault ??= refusal instanceof ServerFault ? refusal : undefined;
      body.destroy(refusal);
    });
    written = pipeline(stream, sink);
    written.catch(() => {});
  });
  parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
    if (!options.fields.includes(name)) {
      fail(
        new ApiHttpError(
          400,
          'invalid_field',
          `field "${name}": not a field of this request (known: ${options.fields.join(', ')})`,
        ),
      );
      return;
    }
    if (valueTruncated) fail(new ApiHttpError(400, 'invalid_field', `field "${name}": longer than 64 KiB`));
    fields.set(name, [...(fields.get(name) ?? []), value]);
  });
  parser.on('filesLimit', () => fail(new ApiHttpError(400, 'invalid_field', 'only one deck per request')));
  parser.on('fieldsLimit', () => fail(new ApiHttpError(400, 'invalid_field', 'too many fields')));
  parser.on('partsLimit', () => fail(new ApiHttpError(400, 'invalid_field', 'too many parts')));

  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > options.limitBytes) done(tooLarge(options.limitBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, counted, parser);
    await written;
  } catch (error) {
    if (error instanceof ApiHttpError) fail(error);
    else if (request.signal.aborted)
      fail(new ApiHttpError(400, 'client_aborted', 'the client closed the upload'));
    else
      fail(
        new ApiHttpError(
          400,
          'malformed_multipart',
          `the multipart body cannot be read: ${(error as Error).message}`,
          { Connection: 'close' },
        ),
      );
  }
  if (!failure && !file)
    failure = new ApiHttpError(400, 'invalid_field', `field "${options.fileField}": is required`);
  if (failure) {
    body.destroy();
    if (file) await rm(file.path, { force: true });
    // A server-side fault is thrown as such, so the server logs its detail under the request id.
    throw serverFault ?? failure;
  }
  return { fields, file: file! };
}
