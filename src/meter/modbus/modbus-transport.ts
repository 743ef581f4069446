import { systemClock, type Clock, type Timer } from '../../clock.js';
import { EventEmitter } from 'node:events';
import { Backoff, RECONNECT_CAP_MS } from '../../backoff.js';
import { MeterDataError } from '../decoder.js';
import type { MeasuredValues } from '../../modbus-protocol/profiles/quantities.js';
import type { ModbusSource } from '../source.js';
import type { MessageRef, ReadingTransport, ReadingTransportEvents } from '../transport/transport.js';
import { closeClient } from '../../modbus-protocol/client-close.js';
import { createMeterReader, type MeterReader } from './meter-reader.js';
import { newSerialClient } from '../../modbus-protocol/serial-client.js';
import { joinRtuBus, type BusClient, type BusLease } from '../../modbus-protocol/rtu-bus.js';
import { readingFromRegisters } from './to-reading.js';

/** How long a request waits for the meter's reply before it counts as a timeout. */
const RESPONSE_TIMEOUT_MS = 1000;

/** The failures of one Modbus meter source, by kind (a successful poll counts in `readings`). */
export interface ModbusPollCounters {
  polls: number;
  readings: number;
  /** No reply within RESPONSE_TIMEOUT_MS. */
  timeouts: number;
  /** Exception replies (Modbus Application Protocol 1.1b3 §7: 01 illegal function, 02 address ...). */
  exceptions: number;
  /** Replies whose CRC-16 did not match (Modbus over Serial Line V1.02 §2.5.1.2). */
  crcErrors: number;
  /** Anything else: short replies, a map that decodes to no power value, no SunSpec meter model. */
  otherErrors: number;
}

/** The bus's client, which TCP sources also connect over TCP. */
type ModbusClient = BusClient & {
  connectTCP(host: string, options: { port: number }): Promise<void>;
};

/** modbus-serial's client, loaded only when a Modbus source is configured. */
async function newClient(): Promise<ModbusClient> {
  return newSerialClient();
}

/**
 * A Modbus meter read as the bus master (modbus-serial): every `interval` the profile's registers
 * are read and decoded with the same maps the slaves serve, and a Reading is emitted. A failed
 * poll (timeout, exception reply, CRC error) is counted and retried after the capped exponential
 * backoff (1 s doubling to 30 s, never sooner than the interval), reset by the next good poll; the
 * store turns a silent meter into NO DATA after meter.timeout. The port or connection going away
 * closes the transport; the meter input reopens it.
 */
export class ModbusMeterTransport extends EventEmitter<ReadingTransportEvents> implements ReadingTransport {
  readonly description: string;
  readonly descriptionKey: MessageRef;
  readonly counters: ModbusPollCounters = {
    polls: 0,
    readings: 0,
    timeouts: 0,
    exceptions: 0,
    crcErrors: 0,
    otherErrors: 0,
  };
  private client: ModbusClient | undefined;
  /** `modbus-rtu:`: this meter's place on the RS485 bus of its device path, shared with other units. */
  private lease: BusLease | undefined;
  private readonly reader: MeterReader;
  private readonly backoff = new Backoff(1000, RECONNECT_CAP_MS);
  private timer: Timer | undefined;
  private closed = false;

  constructor(
    private readonly source: ModbusSource,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.reader = createMeterReader(source.profile);
    const where =
      source.kind === 'modbus-rtu'
        ? `${source.path} ${source.baudRate} baud`
        : `${source.host}:${source.port}`;
    this.description = `Modbus meter ${source.profile} at ${where}, unit ${source.unitId}`;
    this.descriptionKey = {
      key: source.kind === 'modbus-rtu' ? 'source.modbus_rtu' : 'source.modbus_tcp',
      args:
        source.kind === 'modbus-rtu'
          ? { profile: source.profile, path: source.path, baud: source.baudRate, unit: source.unitId }
          : { profile: source.profile, host: source.host, port: source.port, unit: source.unitId },
    };
  }

  async open(): Promise<void> {
    const source = this.source;
    if (source.kind === 'modbus-rtu') {
      // One opener per device path: every unit on the bus shares one link (docs/architecture.md#shared-rs485-bus).
      this.lease = await joinRtuBus(
        source,
        newClient,
        RESPONSE_TIMEOUT_MS,
        (reason) => this.lost(reason),
        this.clock,
      );
      this.closed = false;
      this.schedule(0);
      return;
    }
    const client = await newClient();
    client.on('error', () => undefined); // socket errors surface as failed requests or 'close'
    await client.connectTCP(source.host, { port: source.port });
    client.setID(source.unitId);
    client.setTimeout(RESPONSE_TIMEOUT_MS);
    client.on('close', () => this.lost(new Error('port closed')));
    this.client = client;
    this.closed = false;
    this.schedule(0);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const lease = this.lease;
    this.lease = undefined;
    await lease?.release();
    const client = this.client;
    this.client = undefined;
    if (client) await closeClient(client, this.clock);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = this.clock.setTimeout(() => void this.poll(), delayMs);
  }

  /** One poll's reads: through the bus lease on RS485, directly on the TCP client. */
  private read(): Promise<MeasuredValues> | undefined {
    if (this.lease) return this.lease.transact(this.source.unitId, (client) => this.reader.read(client));
    const client = this.client;
    return client ? this.reader.read(client) : undefined;
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    const pending = this.read();
    if (!pending) return;
    this.counters.polls += 1;
    const started = this.clock.now();
    let delay = this.source.intervalMs;
    try {
      const measured = await pending;
      if (this.closed) return;
      if (measured.power === undefined && measured['phasePower.0'] === undefined)
        throw new MeterDataError('parse', 'the meter map decoded to no power value');
      this.counters.readings += 1;
      this.backoff.reset();
      // Start to start: waiting for the bus or a slow reply does not stretch the cadence.
      delay = Math.max(0, this.source.intervalMs - (this.clock.now() - started));
      this.emit('reading', readingFromRegisters(measured, this.reader.identity, this.clock.now()));
    } catch (error) {
      if (this.closed) return;
      if (isPortGone(error)) {
        this.lost(error as Error);
        return;
      }
      this.failed(error as Error);
      delay = Math.max(delay, this.backoff.next());
    }
    this.schedule(delay);
  }

  /**
   * Counts a failed poll by kind and reports it as a rejection like every source does (the store's
   * counters, the meter input's log line and `services.meter.error`).
   */
  private failed(error: Error & { errno?: string; modbusCode?: number }): void {
    if (error.errno === 'ETIMEDOUT') {
      this.counters.timeouts += 1;
      this.emit('reject', new MeterDataError('timeout', `no reply within ${RESPONSE_TIMEOUT_MS} ms`));
    } else if (error.modbusCode !== undefined) {
      this.counters.exceptions += 1;
      this.emit('reject', new MeterDataError('parse', `exception reply: ${error.message}`));
    } else if (/CRC/.test(error.message)) {
      this.counters.crcErrors += 1;
      this.emit('reject', new MeterDataError('crc', 'Modbus reply with a wrong CRC'));
    } else {
      this.counters.otherErrors += 1;
      const kind = error instanceof MeterDataError ? error.kind : 'parse';
      this.emit('reject', new MeterDataError(kind, error.message));
    }
  }

  private lost(reason: Error): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.emit('close', reason);
  }
}

function isPortGone(error: unknown): boolean {
  const errno = (error as { errno?: string }).errno;
  return errno === 'ECONNREFUSED' || /Port Not Open/.test((error as Error).message);
}
