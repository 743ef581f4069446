import { systemClock, type Clock, type Timer } from '../clock.js';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { answerPdu, noTargetReply, ReplyCounters, type RegisterSpace } from './pdu.js';

/**
 * Modbus TCP slave for function codes 03 and 04 (./pdu.ts) over any byte stream.
 *
 * Framing, Modbus Messaging on TCP/IP Implementation Guide V1.0b §3.1.3: MBAP header = transaction
 * id (2), protocol id (2, 0 = Modbus), length (2, bytes that follow: unit id + PDU), unit id (1).
 * An ADU is at most 260 bytes, so length is 2..254 (unit id + function code at least, PDU at most
 * 253). A header with another protocol id or an impossible length cannot be resynchronised: the
 * connection is closed after the replies to the frames before it.
 *
 * Addresses: the PDU carries 0-based addresses (Modbus Application Protocol V1.1b3 §4.4), so the
 * device's range "0..9998 (0-based) or 30001..39999 (logical)" is one range in two notations: logical
 * input register 30001 is PDU address 0. A PDU address of 30000 and above is outside the table.
 */

const MBAP_BYTES = 7;
const MIN_LENGTH = 2;
const MAX_LENGTH = 254;
/** Pause reading from a client that does not read its replies once this much is queued. */
const MAX_QUEUED_BYTES = 64 * 1024;

export interface SlaveOptions {
  /** The registers served (the profile's register map); read on every request, never copied. */
  space: RegisterSpace;
  /**
   * Concurrent connections. At the cap a new client is admitted by closing the connection that
   * has been idle longest (no complete request, or the oldest last one); only when every
   * connection completed a request within BUSY_MS is the new one refused. So half-open sockets of
   * a crashed inverter, or a client that never sends a request, cannot lock out a valid poller.
   */
  maxConnections?: number;
  /** A connection without a complete request for this long (up to twice as long) is closed. */
  idleTimeoutMs?: number;
  /** Clock for idleness (tests). */
  now?: () => number;
  /** The idle timers (docs/architecture.md#clock). */
  clock?: Clock;
}

/** A connection that completed a request within this time is busy and never evicted for a newcomer. */
const BUSY_MS = 1000;

export const DEFAULT_MAX_CONNECTIONS = 32;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export class ModbusSlave extends ReplyCounters {
  /** Connections closed for an invalid MBAP header. */
  protocolErrors = 0;
  /** Connections refused because the cap was reached with every connection busy. */
  refused = 0;
  /** Idle connections closed to admit a new one at the cap. */
  evicted = 0;
  /** Replaced when the profile changes; the next request reads the new map. */
  space: RegisterSpace;
  /**
   * The unit-id map (docs/architecture.md#modbus-unit-map): the space of a unit id, undefined for an
   * unmapped one (exception 0x0B). Unset: every unit id reads `space`.
   */
  unitSpace: ((unitId: number) => RegisterSpace | undefined) | undefined;
  private readonly maxConnections: number;
  private readonly idleTimeoutMs: number;
  private readonly open = new Map<Duplex, Connection>();
  readonly now: () => number;
  readonly clock: Clock;

  constructor(options: SlaveOptions) {
    super();
    this.space = options.space;
    this.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.now = options.now ?? this.clock.now;
  }

  get connections(): number {
    return this.open.size;
  }

  /** Serves one connection (a TCP socket, or any duplex in tests) until it closes. */
  handle(duplex: Duplex): void {
    duplex.on('error', () => undefined); // resets by clients are normal; 'close' follows
    if (this.open.size >= this.maxConnections && !this.evictIdlest()) {
      this.refused += 1;
      duplex.destroy();
      return;
    }
    if (duplex instanceof Socket) duplex.setNoDelay(true);
    const connection = new Connection(this, duplex, this.idleTimeoutMs);
    this.open.set(duplex, connection);
    duplex.on('data', (chunk: Buffer) => connection.receive(chunk));
    duplex.on('close', () => {
      connection.stopIdleCheck();
      this.open.delete(duplex);
    });
  }

  /** Closes every connection (stop, port move). */
  disconnectAll(): void {
    for (const duplex of this.open.keys()) duplex.destroy();
  }

  /** Closes the connection idle longest, unless every one is busy; whether a slot was freed. */
  private evictIdlest(): boolean {
    let idlest: [Duplex, Connection] | undefined;
    for (const entry of this.open) {
      if (idlest === undefined || entry[1].lastRequestAt < idlest[1].lastRequestAt) idlest = entry;
    }
    if (idlest === undefined || this.now() - idlest[1].lastRequestAt < BUSY_MS) return false;
    const [duplex, connection] = idlest;
    connection.stopIdleCheck();
    this.open.delete(duplex);
    duplex.destroy();
    this.evicted += 1;
    return true;
  }

  /** The reply to one complete frame at buf[offset .. offset + 6 + length): MBAP header + PDU. */
  answer(buf: Buffer, offset: number, length: number): Buffer {
    // length counts the unit id and the PDU.
    const space = this.unitSpace ? this.unitSpace(buf[offset + 6]!) : this.space;
    const reply = space
      ? answerPdu(space, buf, offset + 7, length - 1, MBAP_BYTES, 0)
      : noTargetReply(buf, offset + 7, MBAP_BYTES, 0);
    this.countReply(reply, MBAP_BYTES);
    // MBAP: transaction id echoed, protocol 0, length = unit id + PDU (at most 254), unit id echoed.
    reply[0] = buf[offset]!;
    reply[1] = buf[offset + 1]!;
    reply[2] = 0;
    reply[3] = 0;
    reply[4] = 0;
    reply[5] = reply.length - 6;
    reply[6] = buf[offset + 6]!;
    return reply;
  }

  /** A connection is closed for an invalid header (see the file comment). */
  countProtocolError(): void {
    this.protocolErrors += 1;
  }
}

/** Per-connection framing state: a partial frame waits for the rest; pipelined frames are answered in order. */
class Connection {
  private pending: Buffer | undefined;
  private closing = false;
  /**
   * Set when a chunk completed at least one request, cleared by the idle check, so no timer is
   * touched per request; bytes that never make a complete request do not keep a connection open.
   */
  private active = false;
  /** When a chunk last completed a request (0: never); the cap closes the oldest first. */
  lastRequestAt = 0;
  private readonly idle: Timer;

  constructor(
    private readonly slave: ModbusSlave,
    private readonly duplex: Duplex,
    idleTimeoutMs: number,
  ) {
    // Closed after one to two idle periods without a byte from the client.
    this.idle = this.slave.clock.setTimeout(() => this.checkIdle(), idleTimeoutMs);
    this.idle.unref();
  }

  stopIdleCheck(): void {
    this.slave.clock.clearTimeout(this.idle);
  }

  private checkIdle(): void {
    if (!this.active) {
      this.duplex.destroy();
      return;
    }
    this.active = false;
    this.idle.refresh();
  }

  receive(chunk: Buffer): void {
    if (this.closing) return;
    const buf = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let offset = 0;
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    while (buf.length - offset >= MBAP_BYTES) {
      const length = buf.readUInt16BE(offset + 4);
      if (buf[offset + 2] !== 0 || buf[offset + 3] !== 0 || length < MIN_LENGTH || length > MAX_LENGTH) {
        this.closing = true;
        break;
      }
      if (buf.length - offset < 6 + length) break;
      const reply = this.slave.answer(buf, offset, length);
      if (first === undefined) first = reply;
      else (more ??= []).push(reply);
      offset += 6 + length;
    }
    // Copy the tail so a large chunk is not kept alive by a few bytes of it.
    if (!this.closing && offset < buf.length) this.pending = Buffer.from(buf.subarray(offset));
    if (first !== undefined) {
      this.active = true;
      this.lastRequestAt = this.slave.now();
      this.send(more === undefined ? first : Buffer.concat([first, ...more]));
    }
    if (this.closing) this.close();
  }

  private send(bytes: Buffer): void {
    this.duplex.write(bytes);
    if (this.duplex.writableLength > MAX_QUEUED_BYTES && !this.duplex.isPaused()) {
      this.duplex.pause();
      this.duplex.once('drain', () => this.duplex.resume());
    }
  }

  private close(): void {
    this.slave.countProtocolError();
    this.duplex.end(() => this.duplex.destroy());
  }
}
