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

interface ReceivedUpload {
  fields: Map<string, string[]>;
  /** The deck, complete on disk in the temp folder; the caller moves or removes it. */
  file: { path: string; filename: string | null; bytes: number };
}

interface ReceiveUploadOptions {
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
 * Streams a `multipart/form-data` body (hono's `parseBody` would hold it in memory): the file part to
 * a temp file, every byte counted, so a body past the limit stops there however it was framed. On any
 * refusal the temp file is removed before the promise settles.
 */
export async function receiveUpload(
  request: Request,
  options: ReceiveUploadOptions,
): Promise<ReceivedUpload> {
  const contentType = multipartContentType(request, options.fileField);
  try {
    await mkdir(options.tmpDir, { recursive: true });
  } catch (error) {
    throw isDiskFull(error) ? diskFullError() : new ServerFault(error);
  }
  const body = Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>);
  const upload = new UploadParts(options, body);
  try {
    await pipeline(body, byteCounter(options.limitBytes), upload.parser(contentType));
    await upload.written;
  } catch (error) {
    upload.fail(readFailure(error, request.signal.aborted));
  }
  if (!upload.failure && !upload.file)
    upload.fail(new ApiHttpError(400, 'invalid_field', `field "${options.fileField}": is required`));
  if (upload.failure) {
    body.destroy();
    if (upload.file) await rm(upload.file.path, { force: true });
    // A server-side fault is thrown as such, so the server logs its detail under the request id.
    throw upload.serverFault ?? upload.failure;
  }
  return { fields: upload.fields, file: upload.file! };
}

function multipartContentType(request: Request, fileField: string): string {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType))
    throw new ApiHttpError(
      415,
      'unsupported_media_type',
      `send multipart/form-data with the deck in the "${fileField}" field (got ${JSON.stringify(contentType.split(';')[0] || 'no Content-Type')})`,
    );
  if (!request.body) throw new ApiHttpError(400, 'malformed_multipart', 'the request has no body');
  return contentType;
}

function byteCounter(limitBytes: number): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > limitBytes) done(tooLarge(limitBytes));
      else done(null, chunk);
    },
  });
}

function readFailure(error: unknown, aborted: boolean): ApiHttpError {
  if (error instanceof ApiHttpError) return error;
  if (aborted) return new ApiHttpError(400, 'client_aborted', 'the client closed the upload');
  return new ApiHttpError(
    400,
    'malformed_multipart',
    `the multipart body cannot be read: ${(error as Error).message}`,
    { Connection: 'close' },
  );
}

class UploadParts {
  readonly fields = new Map<string, string[]>();
  file: ReceivedUpload['file'] | undefined;
  written: Promise<void> | undefined;
  failure: ApiHttpError | undefined;
  serverFault: ServerFault | undefined;

  constructor(
    private readonly options: ReceiveUploadOptions,
    private readonly body: Readable,
  ) {}

  fail(error: ApiHttpError): void {
    this.failure ??= error;
  }

  parser(contentType: string): ReturnType<typeof Busboy> {
    const parser = Busboy({
      headers: { 'content-type': contentType },
      limits: { fileSize: this.options.limitBytes, files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 },
    });
    parser.on('file', (name, stream, filename) => this.onFile(name, stream, filename));
    parser.on('field', (name, value, _nameTruncated, valueTruncated) =>
      this.onField(name, value, valueTruncated),
    );
    parser.on('filesLimit', () =>
      this.fail(new ApiHttpError(400, 'invalid_field', 'only one deck per request')),
    );
    parser.on('fieldsLimit', () => this.fail(new ApiHttpError(400, 'invalid_field', 'too many fields')));
    parser.on('partsLimit', () => this.fail(new ApiHttpError(400, 'invalid_field', 'too many parts')));
    return parser;
  }

  private onFile(name: string, stream: Readable, filename: string | undefined): void {
    if (name !== this.options.fileField || this.file) {
      this.fail(
        new ApiHttpError(
          400,
          'invalid_field',
          this.file
            ? 'only one deck per request'
            : `field "${name}": unknown file field (send the deck as "${this.options.fileField}")`,
        ),
      );
      stream.resume();
      return;
    }
    const path = join(this.options.tmpDir, `${randomUUID()}.part`);
    const target = { path, filename: filename ? filename.slice(0, 255) : null, bytes: 0 };
    this.file = target;
    stream.on('data', (chunk: Buffer) => {
      target.bytes += chunk.length;
    });
    stream.on('limit', () => this.fail(tooLarge(this.options.limitBytes)));
    const sink = createWriteStream(path, { flags: 'wx' });
    // A write that fails (a full disk) ends the request at once: the body is not read to its end first.
    sink.on('error', (error: unknown) => this.onWriteError(error));
    this.written = pipeline(stream, sink);
    this.written.catch(() => {});
  }

  private onWriteError(error: unknown): void {
    // Only the file system's own errors (they name a syscall): a body that breaks off reaches the
    // sink too, as the reason pipeline destroyed it, and is the client's fault, answered by the caller.
    if (typeof (error as { syscall?: unknown }).syscall !== 'string') return;
    const refusal = isDiskFull(error) ? diskFullError() : new ServerFault(error);
    this.fail(refusal instanceof ApiHttpError ? refusal : toApiError(refusal));
    this.serverFault ??= refusal instanceof ServerFault ? refusal : undefined;
    this.body.destroy(refusal);
  }

  private onField(name: string, value: string, valueTruncated: boolean): void {
    if (!this.options.fields.includes(name)) {
      this.fail(
        new ApiHttpError(
          400,
          'invalid_field',
          `field "${name}": not a field of this request (known: ${this.options.fields.join(', ')})`,
        ),
      );
      return;
    }
    if (valueTruncated)
      this.fail(new ApiHttpError(400, 'invalid_field', `field "${name}": longer than 64 KiB`));
    this.fields.set(name, [...(this.fields.get(name) ?? []), value]);
  }
}
