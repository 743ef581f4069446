import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * Release bundle format 1 (the file `npm run release` writes and POST /load accepts). All integers
 * are big-endian.
 *
 *   offset   size  field
 *   0        8     magic, ASCII "MGBUNDLE"
 *   8        2     format version, 1
 *   10       2     V, byte length of the app version
 *   12       V     app version, ASCII [0-9A-Za-z.+-], 1..64 bytes (package.json "version")
 *   12+V     8     P, payload length in bytes (at most 2^53 - 1)
 *   20+V     32    SHA-256 of the payload
 *   52+V           end of header (H = 52 + V)
 *   H        P     payload: a gzip-compressed tar of the app (dist/, package.json, package-lock.json,
 *                  production node_modules)
 *   H+P      100   signature trailer, absent in an unsigned bundle:
 *                    4   tag, ASCII "ED25"
 *                    32  key id: SHA-256 of the signer's raw 32-byte Ed25519 public key
 *                    64  Ed25519 signature (RFC 8032) of the header bytes [0, H)
 *
 * The signature covers header and payload: the header holds the payload's SHA-256, so the payload
 * is bound through its digest. Ed25519 (RFC 8032 §5.1.6) reads the whole message twice, so signing
 * the payload bytes themselves would need it whole in memory; the upload is verified as it streams
 * to disk instead. Nothing may follow the trailer.
 */
export const MAGIC = Buffer.from('MGBUNDLE', 'ascii');
export const FORMAT_VERSION = 1;
export const TRAILER_TAG = Buffer.from('ED25', 'ascii');
export const TRAILER_LENGTH = 4 + 32 + 64;
const FIXED_HEADER_BYTES = 8 + 2 + 2 + 8 + 32;
const VERSION_PATTERN = /^[0-9A-Za-z.+-]{1,64}$/;

export interface BundleHeader {
  formatVersion: number;
  version: string;
  payloadLength: number;
  payloadSha256: Buffer;
  /** H: byte length of the header, where the payload starts. */
  headerLength: number;
}

/** Why a bundle or an upload was refused (400 unless noted). */
export type BundleRejection =
  | 'bad_magic'
  | 'unsupported_format'
  | 'bad_header'
  | 'truncated'
  | 'trailing_data'
  | 'checksum_mismatch'
  | 'unsigned'
  | 'unknown_key'
  | 'bad_signature'
  | 'bad_archive'
  | 'missing_file'
  | 'bad_multipart'
  /** 413 */
  | 'too_large';

export class BundleError extends Error {
  constructor(
    readonly reason: BundleRejection,
    message: string,
  ) {
    super(message);
    this.name = 'BundleError';
  }
}

export type HeaderParse =
  | { status: 'complete'; header: BundleHeader; headerBytes: Buffer }
  | { status: 'incomplete'; needBytes: number }
  | { status: 'rejected'; reason: BundleRejection; message: string };

/** Parses the header from the start of a bundle; says how many bytes it needs when given too few. */
export function parseBundleHeader(bytes: Buffer): HeaderParse {
  const magicPart = bytes.subarray(0, MAGIC.length);
  if (!MAGIC.subarray(0, magicPart.length).equals(magicPart)) {
    return {
      status: 'rejected',
      reason: 'bad_magic',
      message: 'not a meter-gateway release bundle (wrong magic)',
    };
  }
  if (bytes.length < 12) return { status: 'incomplete', needBytes: 12 };
  const formatVersion = bytes.readUInt16BE(8);
  if (formatVersion !== FORMAT_VERSION) {
    return {
      status: 'rejected',
      reason: 'unsupported_format',
      message: `bundle format ${formatVersion} is not supported (expected ${FORMAT_VERSION})`,
    };
  }
  const versionLength = bytes.readUInt16BE(10);
  const headerLength = FIXED_HEADER_BYTES + versionLength;
  if (versionLength < 1 || versionLength > 64) {
    return {
      status: 'rejected',
      reason: 'bad_header',
      message: `app version length ${versionLength} outside 1..64`,
    };
  }
  if (bytes.length < headerLength) return { status: 'incomplete', needBytes: headerLength };
  const version = bytes.toString('latin1', 12, 12 + versionLength);
  if (!VERSION_PATTERN.test(version)) {
    return {
      status: 'rejected',
      reason: 'bad_header',
      message: 'app version has characters outside [0-9A-Za-z.+-]',
    };
  }
  const payloadLength = bytes.readBigUInt64BE(12 + versionLength);
  if (payloadLength > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { status: 'rejected', reason: 'bad_header', message: 'payload length out of range' };
  }
  const header: BundleHeader = {
    formatVersion,
    version,
    payloadLength: Number(payloadLength),
    payloadSha256: Buffer.from(bytes.subarray(20 + versionLength, headerLength)),
    headerLength,
  };
  return { status: 'complete', header, headerBytes: Buffer.from(bytes.subarray(0, headerLength)) };
}

export function encodeBundleHeader(version: string, payloadLength: number, payloadSha256: Buffer): Buffer {
  if (!VERSION_PATTERN.test(version))
    throw new Error(`app version ${JSON.stringify(version)} is not [0-9A-Za-z.+-]{1,64}`);
  const fixed = Buffer.alloc(12);
  MAGIC.copy(fixed, 0);
  fixed.writeUInt16BE(FORMAT_VERSION, 8);
  fixed.writeUInt16BE(version.length, 10);
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(payloadLength));
  return Buffer.concat([fixed, Buffer.from(version, 'latin1'), length, payloadSha256]);
}

/** SHA-256 of the raw 32-byte Ed25519 public key. */
export function keyIdOf(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (publicKey.asymmetricKeyType !== 'ed25519' || typeof jwk.x !== 'string')
    throw new Error('not an Ed25519 key');
  return createHash('sha256').update(Buffer.from(jwk.x, 'base64url')).digest();
}

export function encodeTrailer(keyId: Buffer, signature: Buffer): Buffer {
  return Buffer.concat([TRAILER_TAG, keyId, signature]);
}

/** The configured update.public_key as a key object, or undefined when unset or not Ed25519. */
export function trustedKeyOf(pem: string): KeyObject | undefined {
  if (pem.trim() === '') return undefined;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Checks the trailer against the trusted key: undefined when the signature is good. */
export function checkSignature(
  headerBytes: Buffer,
  trailer: Buffer,
  trusted: KeyObject | undefined,
): { reason: BundleRejection; message: string } | undefined {
  if (trailer.length === 0)
    return { reason: 'unsigned', message: 'the bundle is not signed (run npm run sign)' };
  if (trailer.length !== TRAILER_LENGTH || !trailer.subarray(0, 4).equals(TRAILER_TAG)) {
    return { reason: 'bad_signature', message: 'malformed signature trailer' };
  }
  if (!trusted)
    return { reason: 'unknown_key', message: 'update.public_key is not set to an Ed25519 public key' };
  if (!trailer.subarray(4, 36).equals(keyIdOf(trusted))) {
    return { reason: 'unknown_key', message: 'the bundle is signed with a key other than update.public_key' };
  }
  if (!verify(null, headerBytes, trusted, trailer.subarray(36))) {
    return { reason: 'bad_signature', message: 'the bundle signature does not verify' };
  }
  return undefined;
}
