import { createHash, type KeyObject } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import {
  BundleError,
  checkSignature,
  parseBundleHeader,
  TRAILER_LENGTH,
  type BundleHeader,
} from './bundle-format.js';

export interface ReceiverOptions {
  /** Where the payload (the tar.gz) is written; created exclusively, removed on any failure. */
  payloadPath: string;
  /** update.max_bytes: the whole bundle may not be larger. */
  maxBytes: number;
  /** Free bytes where payloadPath lives (fs.statfs), checked against the declared payload length. */
  freeBytes: number;
  trustedKey: KeyObject | undefined;
}

export interface VerifiedBundle {
  header: BundleHeader;
  payloadPath: string;
}

type Phase = 'header' | 'payload' | 'trailer';

/**
 * Verifies a bundle while it streams in (format in bundle-format.ts): the header is checked as soon
 * as it is complete (magic, format, declared size against max_bytes and free space), the payload is
 * hashed on its way to disk, and checksum and signature are checked at the end. Memory use is one
 * chunk plus the header; any failure destroys the stream with a BundleError and deletes the file.
 */
export class BundleReceiver extends Writable {
  private phase: Phase = 'header';
  private pending = Buffer.alloc(0);
  private header: BundleHeader | undefined;
  private headerBytes: Buffer | undefined;
  private payloadWritten = 0;
  private readonly trailerChunks: Buffer[] = [];
  private trailerLength = 0;
  private received = 0;
  private readonly hash = createHash('sha256');
  private file: FileHandle | undefined;
  result: VerifiedBundle | undefined;

  constructor(private readonly options: ReceiverOptions) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.consume(chunk).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.finish().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const failed = error !== null || this.result === undefined;
    const file = this.file;
    this.file = undefined;
    Promise.resolve(file?.close())
      .then(() => (failed ? unlink(this.options.payloadPath).catch(() => undefined) : undefined))
      .then(
        () => callback(error),
        () => callback(error),
      );
  }

  private async consume(chunk: Buffer): Promise<void> {
    this.received += chunk.length;
    if (this.received > this.options.maxBytes) {
      throw new BundleError(
        'too_large',
        `the upload exceeds update.max_bytes (${this.options.maxBytes} bytes)`,
      );
    }
    let rest = chunk;
    if (this.phase === 'header') {
      this.pending = Buffer.concat([this.pending, rest]);
      const parsed = parseBundleHeader(this.pending);
      if (parsed.status === 'rejected') throw new BundleError(parsed.reason, parsed.message);
      if (parsed.status === 'incomplete') return;
      await this.startPayload(parsed.header, parsed.headerBytes);
      rest = this.pending.subarray(parsed.header.headerLength);
      this.pending = Buffer.alloc(0);
    }
    if (this.phase === 'payload') rest = await this.writePayload(rest);
    if (this.phase === 'trailer' && rest.length > 0) {
      if (this.trailerLength + rest.length > TRAILER_LENGTH) {
        throw new BundleError('trailing_data', 'bytes follow the signature trailer');
      }
      this.trailerChunks.push(Buffer.from(rest));
      this.trailerLength += rest.length;
    }
  }

  private async startPayload(header: BundleHeader, headerBytes: Buffer): Promise<void> {
    const total = header.headerLength + header.payloadLength + TRAILER_LENGTH;
    if (total > this.options.maxBytes) {
      throw new BundleError(
        'too_large',
        `the bundle (${total} bytes) exceeds update.max_bytes (${this.options.maxBytes} bytes)`,
      );
    }
    if (header.payloadLength > this.options.freeBytes) {
      throw new BundleError(
        'too_large',
        `the bundle payload (${header.payloadLength} bytes) exceeds the free disk space (${this.options.freeBytes} bytes)`,
      );
    }
    this.header = header;
    this.headerBytes = headerBytes;
    this.file = await open(this.options.payloadPath, 'wx', 0o600);
    this.phase = header.payloadLength === 0 ? 'trailer' : 'payload';
  }

  private async writePayload(bytes: Buffer): Promise<Buffer> {
    const wanted = this.header!.payloadLength - this.payloadWritten;
    const part = bytes.subarray(0, Math.min(wanted, bytes.length));
    this.hash.update(part);
    let offset = 0;
    while (offset < part.length)
      offset += (await this.file!.write(part, offset, part.length - offset)).bytesWritten;
    this.payloadWritten += part.length;
    if (this.payloadWritten === this.header!.payloadLength) this.phase = 'trailer';
    return bytes.subarray(part.length);
  }

  private async finish(): Promise<void> {
    if (this.phase !== 'trailer' || (this.trailerLength > 0 && this.trailerLength < TRAILER_LENGTH)) {
      throw new BundleError('truncated', 'the bundle ends before its declared end (truncated upload)');
    }
    if (!this.hash.digest().equals(this.header!.payloadSha256)) {
      throw new BundleError('checksum_mismatch', 'the payload does not match the SHA-256 in the header');
    }
    const problem = checkSignature(
      this.headerBytes!,
      Buffer.concat(this.trailerChunks),
      this.options.trustedKey,
    );
    if (problem) throw new BundleError(problem.reason, problem.message);
    await this.file!.sync();
    await this.file!.close();
    this.file = undefined;
    this.result = { header: this.header!, payloadPath: this.options.payloadPath };
  }
}
