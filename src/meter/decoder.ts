import type { MeterDataErrorKind } from '../reading/meter-state.js';
import type { MeterProtocol, Reading } from '../reading/reading.js';

/** A rejected frame or run of bytes; `kind` is what the store counts it under. */
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
