import type { Clock, Timer } from '../clock.js';

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

/** Where an inverter is reached: `modbus-tcp://host:port?unit=n`. */
export interface TcpEndpoint {
  host: string;
  port: number;
  unit: number;
}

/** Parses `modbus-tcp://host[:port][?unit=n]` (port 502 and unit 1 by default); undefined when not one. */
export function parseInverterSource(source: string): TcpEndpoint | undefined {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'modbus-tcp:' || !url.hostname) return undefined;
  const port = url.port ? Number(url.port) : 502;
  const unitText = url.searchParams.get('unit') ?? '1';
  if (!/^\d{1,3}$/.test(unitText)) return undefined;
  const unit = Number(unitText);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || unit > 247) return undefined;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, unit };
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
    private readonly endpoint: TcpEndpoint,
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
    const module = await import('modbus-serial');
    // CommonJS: under NodeNext the class is the default export's `default` (index.js sets both).
    const client = new module.default.default() as unknown as ModbusMaster;
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
