import { randomBytes, type KeyObject } from 'node:crypto';
import { mkdir, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BundleError } from './bundle-format.js';
import { BundleReceiver, type VerifiedBundle } from './bundle-receiver.js';

/** Multipart framing around the file part (boundaries, part headers) allowed beyond max_bytes. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export interface UploadOptions {
  stagingDir: string;
  maxBytes: number;
  trustedKey: KeyObject | undefined;
}

/** multipart/form-data with a boundary parameter (RFC 7578 §4.1). */
export function isMultipartFormData(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;/i.test(contentType ?? '') && /;\s*boundary=/i.test(contentType ?? '');
}

/**
 * Receives POST /load: the multipart body is parsed by busboy as it arrives, the part named `file`
 * streams through a BundleReceiver into the staging directory (never whole in memory), other parts
 * are drained. Resolves with the verified bundle; rejects with a BundleError, after which no file of
 * the upload is left behind.
 */
export async function receiveUpload(raw: IncomingMessage, options: UploadOptions): Promise<VerifiedBundle> {
  const declared = Number(raw.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + MULTIPART_OVERHEAD_BYTES) {
    throw new BundleError(
      'too_large',
      `the upload (${declared} bytes) exceeds update.max_bytes (${options.maxBytes} bytes)`,
    );
  }
  await mkdir(options.stagingDir, { recursive: true, mode: 0o750 });
  const space = await statfs(options.stagingDir);
  const payloadPath = join(options.stagingDir, `payload-${randomBytes(6).toString('hex')}.tar.gz`);
  // The multipart parser is loaded with the first upload, not by every daemon start.
  const { default: busboy } = await import('busboy');

  return new Promise<VerifiedBundle>((resolve, reject) => {
    const parser = busboy({
      headers: raw.headers,
      limits: { files: 1, fileSize: options.maxBytes + 1, fields: 16, parts: 32, fieldSize: 4096 },
    });
    let receiver: BundleReceiver | undefined;
    let receiving: Promise<VerifiedBundle> | undefined;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      raw.unpipe(parser);
      receiver?.destroy(error);
      reject(
        error instanceof BundleError
          ? error
          : new BundleError('bad_multipart', `malformed multipart body: ${error.message}`),
      );
    };
    parser.on('file', (name, stream) => {
      if (name !== 'file' || receiver) {
        stream.resume();
        return;
      }
      receiver = new BundleReceiver({
        payloadPath,
        maxBytes: options.maxBytes,
        freeBytes: space.bavail * space.bsize,
        trustedKey: options.trustedKey,
      });
      const active = receiver;
      receiving = pipeline(stream, active).then(() => active.result!);
      receiving.catch(fail);
    });
    parser.on('error', (error: Error) =>
      fail(
        /Unexpected end of form/i.test(error.message)
          ? new BundleError('truncated', 'the upload ended early (truncated)')
          : error,
      ),
    );
    parser.on('close', () => {
      if (!receiving) fail(new BundleError('missing_file', 'the multipart body has no part named "file"'));
      else
        receiving.then((bundle) => {
          if (settled) return;
          settled = true;
          resolve(bundle);
        }, fail);
    });
    raw.on('close', () => {
      if (!raw.complete)
        fail(new BundleError('truncated', 'the client closed the connection before the upload ended'));
    });
    raw.pipe(parser);
  });
}
