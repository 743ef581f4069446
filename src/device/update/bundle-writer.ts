import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import {
  BundleError,
  encodeBundleHeader,
  encodeTrailer,
  keyIdOf,
  parseBundleHeader,
  TRAILER_LENGTH,
  type BundleHeader,
} from './bundle-format.js';

export interface PackOptions {
  /** Directory the paths are relative to. */
  cwd: string;
  /** Files and directories to pack, relative to cwd. */
  paths: string[];
  version: string;
  /** The bundle file to write (replaced). */
  out: string;
  /** tar filter: false leaves a path (and everything below it) out. */
  filter?: (path: string) => boolean;
}

/**
 * Writes an unsigned bundle (format in bundle-format.ts): the gzip-compressed tar goes to a temporary
 * file while it is hashed, then header and payload are written to `out`.
 */
export async function writeUnsignedBundle(options: PackOptions): Promise<BundleHeader> {
  const payloadPath = `${options.out}.payload.tmp`;
  const hash = createHash('sha256');
  let payloadLength = 0;
  // tar is loaded with the first bundle, not by every daemon start.
  const tar = await import('tar');
  const payload = await open(payloadPath, 'w', 0o644);
  try {
    const pack = tar.c(
      { gzip: true, cwd: options.cwd, portable: true, ...(options.filter ? { filter: options.filter } : {}) },
      options.paths,
    );
    for await (const chunk of pack as AsyncIterable<Buffer>) {
      hash.update(chunk);
      payloadLength += chunk.length;
      await payload.write(chunk);
    }
  } finally {
    await payload.close();
  }
  try {
    const headerBytes = encodeBundleHeader(options.version, payloadLength, hash.digest());
    const out = createWriteStream(options.out, { mode: 0o644 });
    out.write(headerBytes);
    await pipeline(createReadStream(payloadPath), out);
    const parsed = parseBundleHeader(headerBytes);
    if (parsed.status !== 'complete') throw new Error('encoded header does not parse');
    return parsed.header;
  } finally {
    await rm(payloadPath, { force: true });
  }
}

/** Header of a bundle file plus its size. */
export async function readBundleHeader(
  file: string,
): Promise<{ header: BundleHeader; headerBytes: Buffer; size: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const start = Buffer.alloc(Math.min(size, 52 + 64));
    await handle.read(start, 0, start.length, 0);
    const parsed = parseBundleHeader(start);
    if (parsed.status === 'rejected') throw new BundleError(parsed.reason, parsed.message);
    if (parsed.status === 'incomplete')
      throw new BundleError('truncated', 'the file ends inside the bundle header');
    return { header: parsed.header, headerBytes: parsed.headerBytes, size };
  } finally {
    await handle.close();
  }
}

async function payloadDigest(file: string, header: BundleHeader): Promise<Buffer> {
  const hash = createHash('sha256');
  if (header.payloadLength > 0) {
    const end = header.headerLength + header.payloadLength - 1;
    for await (const chunk of createReadStream(file, { start: header.headerLength, end }))
      hash.update(chunk as Buffer);
  }
  return hash.digest();
}

/**
 * Signs a bundle in place: checks the payload against the header's SHA-256, then appends the
 * signature trailer, or replaces the one already there (signing again with another key).
 */
export async function signBundle(
  file: string,
  privateKey: KeyObject,
): Promise<{ header: BundleHeader; keyId: Buffer }> {
  const { header, headerBytes, size } = await readBundleHeader(file);
  const unsignedSize = header.headerLength + header.payloadLength;
  if (size !== unsignedSize && size !== unsignedSize + TRAILER_LENGTH) {
    throw new BundleError(
      size < unsignedSize ? 'truncated' : 'trailing_data',
      `bundle size ${size} fits neither ${unsignedSize} (unsigned) nor ${unsignedSize + TRAILER_LENGTH} (signed)`,
    );
  }
  if (!(await payloadDigest(file, header)).equals(header.payloadSha256)) {
    throw new BundleError(
      'checksum_mismatch',
      'the payload does not match the SHA-256 in the header; not signing',
    );
  }
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error('the signing key must be an Ed25519 private key');
  const keyId = keyIdOf(createPublicKey(privateKey));
  const trailer = encodeTrailer(keyId, sign(null, headerBytes, privateKey));
  const handle = await open(file, 'r+');
  try {
    await handle.write(trailer, 0, trailer.length, unsignedSize);
    await handle.truncate(unsignedSize + TRAILER_LENGTH);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { header, keyId };
}
