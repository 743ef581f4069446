import { systemClock, type Clock, type Timer } from '../clock.js';
import { joinRtuBus, type BusLease, type RegisterClient } from '../modbus-protocol/rtu-bus.js';
import { newSerialClient } from '../modbus-protocol/serial-client.js';
import type { InverterEndpoint, RtuEndpoint, TcpEndpoint } from '../modbus-protocol/endpoint.js';

/** The part of modbus-serial's client the limiter uses. */
interface ModbusMaster {
  connectTCP(host: string, options: { port: number }): Promise<void>;
  setID(id: number): void;
  setTimeout(ms: number): void;
  readHoldingRegisters(address: number, count: number): Promise<{ data: number[] }>;
  writeRegisters(address: number, values: number[]): Promise<unknown>;
  removeAllListeners(): void;
  on(event: 'error', listener: (error: Error) => void): void;
  close(callback: () => void): void;
  readonly isOpen: boolean;
}

/**
 * Why a transaction failed: the device answered an exception, it did not answer, or the link broke;
 * `not_enabled`: the device answers but its owner has not switched on the control the profile uses.
 */
export type LinkFailureKind = 'exception' | 'timeout' | 'connection' | 'busy' | 'invalid' | 'not_enabled';

/** One inverter's registers, whatever carries them (Modbus TCP, or a shared RS485 bus). */
export interface RegisterLink {
  read(address: number, count: number): Promise<number[]>;
  write(address: number, words: readonly number[]): Promise<void>;
  close(): Promise<void>;
}

export class LinkError extends Error {
  constructor(
    readonly kind: LinkFailureKind,
    message: string,
    readonly exceptionCode?: number,
  ) {
    super(message);
  }
}

/** What modbus-serial rejects with: its own errors carry `errno` or `modbusCode`, socket errors `code`. */
type ModbusFailure = Error & { modbusCode?: number; errno?: string | number; code?: string };

/** Most registers one FC3 request may ask for (Modbus Application Protocol 1.1b3 §6.3). */
export const MAX_READ = 125;
/** Most registers one FC16 request may carry (§6.12). */
export const MAX_WRITE = 123;

export {
  parseInverterSource,
  type InverterEndpoint,
  type RtuEndpoint,
  type TcpEndpoint,
} from '../modbus-protocol/endpoint.js';

/** The link for an endpoint: a TCP connection of its own, or a unit on a shared RS485 bus. */
export function createLink(endpoint: InverterEndpoint, clock: Clock): RegisterLink {
  return endpoint.kind === 'rtu' ? new RtuLink(endpoint) : new ModbusLink(endpoint, clock);
}

/** How long an RTU unit may take to answer (the meters' value on the same bus). */
const RTU_RESPONSE_MS = 1000;

/**
 * One inverter on an RS485 bus: its transactions go through the bus's queue between those of the
 * other units (meters and inverters) on the same device path (src/modbus-protocol/rtu-bus.ts).
 * The bus is joined on the first transaction and joined again after the port went away.
 */
export class RtuLink implements RegisterLink {
  private lease: BusLease | undefined;
  private joining: Promise<BusLease> | undefined;
  private closed = false;

  constructor(private readonly endpoint: RtuEndpoint) {}

  read(address: number, count: number): Promise<number[]> {
    if (count < 1 || count > MAX_READ)
      return Promise.reject(new LinkError('invalid', `read of ${count} registers`));
    return this.transact(async (client) => {
      const answer = await client.readHoldingRegisters(address, count);
      const buffer = answer?.buffer;
      if (!Buffer.isBuffer(buffer) || buffer.length !== count * 2)
        throw new LinkError(
          'invalid',
          `answer of ${buffer?.length ?? 0} bytes to a read of ${count} registers`,
        );
      return Array.from({ length: count }, (_word, index) => buffer.readUInt16BE(index * 2));
    });
  }

  write(address: number, words: readonly number[]): Promise<void> {
    if (words.length < 1 || words.length > MAX_WRITE)
      return Promise.reject(new LinkError('invalid', `write of ${words.length} registers`));
    return this.transact(async (client) => {
      await client.writeRegisters(address, [...words]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const lease = this.lease ?? (await this.joining?.catch(() => undefined));
    this.lease = undefined;
    this.joining = undefined;
    await lease?.release();
  }

  private async transact<T>(work: (client: RegisterClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new LinkError('connection', 'link closed');
    let lease: BusLease;
    try {
      lease = this.lease ?? (await this.join());
    } catch (error) {
      throw new LinkError(
        'connection',
        `${this.endpoint.path}: ${(error as Error).message || 'open failed'}`,
      );
    }
    try {
      return await lease.transact(this.endpoint.unit, work);
    } catch (error) {
      if (error instanceof LinkError) throw error;
      const failure = error as ModbusFailure;
      if (typeof failure.modbusCode === 'number')
        throw new LinkError('exception', `exception ${failure.modbusCode}`, failure.modbusCode);
      if (failure.errno === 'ETIMEDOUT' || /Timed out/.test(failure.message))
        throw new LinkError('timeout', 'no answer in time');
      throw new LinkError('connection', failure.message || 'bus failure');
    }
  }

  private join(): Promise<BusLease> {
    // The bus times the wire itself (the silence by performance.now(), the reply timer from the
    // port's drain): real time, as for the meters on it, whatever clock the limiter runs on.
    this.joining ??= joinRtuBus(
      this.endpoint,
      newSerialClient,
      RTU_RESPONSE_MS,
      () => {
        this.lease = undefined;
        this.joining = undefined;
      },
      systemClock,
    ).then(
      (lease) => {
        if (this.closed) {
          void lease.release();
          throw new Error('link closed');
        }
        this.lease = lease;
        return lease;
      },
      (error: unknown) => {
        this.joining = undefined;
        throw error;
      },
    );
    return this.joining;
  }
}

/**
 * One Modbus TCP connection to one inverter through modbus-serial as the master (loaded on first
 * use): transactions strictly one at a time, connected on demand, dropped after any failure that
 * leaves the link in doubt (the next transaction reconnects). A connection that the peer closes or
 * resets right after it was accepted is reported as `busy`: devices that serve one Modbus TCP client
 * only (SolarEdge) do that while another client holds the link.
 */
export class ModbusLink implements RegisterLink {
  private client: ModbusMaster | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly endpoint: Omit<TcpEndpoint, 'kind'>,
    private readonly clock: Clock,
    private readonly timeoutMs = 2000,
  ) {}

  read(address: number, count: number): Promise<number[]> {
    if (count < 1 || count > MAX_READ)
      return Promise.reject(new LinkError('invalid', `read of ${count} registers`));
    return this.run(async (client) => {
      const answer = await client.readHoldingRegisters(address, count);
      const data = Array.isArray(answer?.data) ? answer.data : [];
      if (data.length !== count || data.some((word) => !Number.isInteger(word) || word < 0 || word > 0xffff))
        throw new LinkError('invalid', `answer of ${data.length} registers to a read of ${count}`);
      return data;
    });
  }

  write(address: number, words: readonly number[]): Promise<void> {
    if (words.length < 1 || words.length > MAX_WRITE)
      return Promise.reject(new LinkError('invalid', `write of ${words.length} registers`));
    return this.run(async (client) => {
      await client.writeRegisters(address, [...words]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => undefined);
    this.drop();
  }

  private run<T>(work: (client: ModbusMaster) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => {
      if (this.closed) throw new LinkError('connection', 'link closed');
      const fresh = !this.client?.isOpen;
      const client = await this.connected();
      try {
        return await work(client);
      } catch (error) {
        throw await this.failure(error as ModbusFailure, fresh);
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async failure(error: ModbusFailure, fresh: boolean): Promise<LinkError> {
    if (error instanceof LinkError && error.kind === 'invalid') {
      this.drop();
      return error;
    }
    if (typeof error.modbusCode === 'number')
      return new LinkError('exception', `exception ${error.modbusCode}`, error.modbusCode);
    this.drop();
    if (error.errno === 'ETIMEDOUT' || error.message === 'Timed out')
      return new LinkError('timeout', 'no answer in time');
    const code = error.code ?? (typeof error.errno === 'string' ? error.errno : undefined);
    // A connection accepted and at once closed or reset by the peer: it serves another client.
    if (fresh && (code === 'ECONNRESET' || code === 'EPIPE' || error.message === 'Port Not Open'))
      return new LinkError(
        'busy',
        'inverter busy (it closed the connection: another Modbus client holds it)',
      );
    return new LinkError('connection', error.message || String(code ?? 'connection failed'));
  }

  private async connected(): Promise<ModbusMaster> {
    if (this.client?.isOpen) return this.client;
    this.drop();
    const client: ModbusMaster = await newSerialClient();
    client.on('error', () => undefined);
    this.client = client;
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.clock.setTimeout(
        () => reject(new LinkError('timeout', 'connect timeout')),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([client.connectTCP(this.endpoint.host, { port: this.endpoint.port }), timeout]);
    } catch (error) {
      this.drop();
      if (error instanceof LinkError) throw error;
      const failure = error as ModbusFailure;
      if (failure.code === 'ECONNRESET')
        throw new LinkError(
          'busy',
          'inverter busy (it reset the connection: another Modbus client holds it)',
        );
      throw new LinkError('connection', failure.message || 'connect failed');
    } finally {
      this.clock.clearTimeout(timer);
    }
    client.setID(this.endpoint.unit);
    client.setTimeout(this.timeoutMs);
    return client;
  }

  /** Closes the connection without waiting for it: a dead socket may never call back. */
  private drop(): void {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.removeAllListeners();
    client.on('error', () => undefined);
    client.close(() => undefined);
  }
}
