import type { MeterProtocol, Reading } from '../reading/reading.js';

/**
 * Why a frame (or a run of bytes) was rejected. Counted by the store under these kinds:
 * - crc: framing was fine but the checksum (DSMR CRC-16/ARC, SML CRC-16/X-25, D0 BCC) did not match;
 * - parse: the frame checked out (or has no checksum) but its content could not be understood;
 * - overflow: bytes without a frame end beyond the protocol's maximum frame size were discarded;
 * - encryption: an encrypted frame that could not be decrypted (no key, wrong key).
 */
export type MeterDataErrorKind = 'crc' | 'parse' | 'overflow' | 'encryption';

export class MeterDataError extends Error {
  constructor(
    readonly kind: MeterDataErrorKind,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'MeterDataError';
  }
}

export type DecodeResult =
  { ok: true; reading: Reading; frame: Buffer } | { ok: false; error: MeterDataError; frame?: Buffer };

/**
 * Bytes in, readings out: one framer plus one pure parser for one protocol. The framer keeps the
 * partial frame between calls; `push` never throws for bad input, it returns errors as results.
 */
export interface MeterDecoder {
  readonly protocol: MeterProtocol;
  /** Feeds a chunk as it came from the transport; returns a result per frame it completed. */
  push(chunk: Buffer, receivedAt: number): DecodeResult[];
  /** Drops any partial frame (after a reconnect). */
  reset(): void;
}
