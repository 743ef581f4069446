import type { EventEmitter } from 'node:events';
import type { Reading } from '../../reading/reading.js';
import type { MeterDataError } from '../decoder.js';

/** A message key and its arguments. */
export interface MessageRef {
  key: string;
  args: Record<string, string | number>;
}

export interface ByteTransportEvents {
  /** Bytes exactly as received. */
  data: [chunk: Buffer];
  /** The link went away (port unplugged, peer closed, read error); the meter input reopens it. */
  close: [reason?: Error];
}

/** What every transport of a meter is: named for logs and status, opened and closed by the meter input. */
interface TransportLifecycle {
  readonly description: string;
  /**
   * The description's message key and arguments where it has English words in it (the web page
   * words it in its language, docs/architecture.md#server-message-keys); absent for a bare URI.
   */
  readonly descriptionKey?: MessageRef;
  /** Resolves once open; rejects when the port, host or peer is absent or refuses (401, 404 ...). */
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A byte source: serial port, TCP client, file replay or the simulator. Reconnecting is not the
 * transport's business: the meter input closes and reopens it with backoff.
 */
export interface ByteTransport extends EventEmitter<ByteTransportEvents>, TransportLifecycle {}

export interface ReadingTransportEvents {
  /** A complete reading (values already in canonical units). */
  reading: [reading: Reading];
  /** Bytes from the device as received, where there are any (byte counter, meter proxy, watchdog). */
  raw: [chunk: Buffer];
  /** A message that could not be turned into a reading; counted by the store. */
  reject: [error: MeterDataError];
  /** The link went away; the meter input reopens it with backoff. */
  close: [reason?: Error];
}

/**
 * A source that delivers readings rather than bytes: another gateway's live SSE stream (REMOTE),
 * or an IEC 62056-21 request session that frames and checks its readouts itself. No decoder is
 * involved; the meter input hands readings to the store as they come.
 */
export interface ReadingTransport extends EventEmitter<ReadingTransportEvents>, TransportLifecycle {}
