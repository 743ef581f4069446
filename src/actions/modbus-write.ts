import { systemClock, type Clock, type Timer } from '../clock.js';
import { newSerialClient } from '../modbus-protocol/serial-client.js';
import type { Logger } from '../log.js';
import { DEFAULTS, type ModbusRequestDefinition, type ValueType } from './definition.js';
import { CODE, modbusExceptionCode, networkFailureCode } from './status-codes.js';
import { payloadFor } from './value-encoding.js';

/** The part of modbus-serial's client the writes use. */
interface ModbusMaster {
  connectTCP(host: string, options: { port: number }): Promise<void>;
  setID(id: number): void;
  setTimeout(ms: number): void;
  writeCoil(address: number, state: boolean): Promise<unknown>;
  writeCoils(address: number, states: boolean[]): Promise<unknown>;
  writeRegister(address: number, value: number): Promise<unknown>;
  writeRegisters(address: number, values: number[]): Promise<unknown>;
  close(callback: () => void): void;
  readonly isOpen: boolean;
}

/** What modbus-serial rejects with: its own errors carry `errno` or `modbusCode`, socket errors `code`. */
type ModbusFailure = Error & { modbusCode?: number; errno?: string | number; code?: string };

interface PooledConnection {
  client: ModbusMaster | undefined;
  /** Writes to one host run one after the other (one TCP connection, one transaction at a time). */
  queue: Promise<unknown>;
  idleTimer: Timer | undefined;
}

/** A connection unused for this long is closed. */
const IDLE_CLOSE_MS = 10_000;

/**
 * Modbus TCP writes of actions through modbus-serial as the master (loaded with the first Modbus
 * action): one connection per host:port, reused by every write to it and closed after
 * IDLE_CLOSE_MS without one, or at once after a connection error (the next write reconnects).
 * The code is 1 for a confirmed write (the device's "Success"), -(100 + exception code) for an
 * exception response, and the negative codes of status-codes.ts for timeouts and connection errors.
 */
export class ModbusWriter {
  private readonly pool = new Map<string, PooledConnection>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Open connections (for the system status and tests). */
  get openConnections(): number {
    return [...this.pool.values()].filter((entry) => entry.client?.isOpen === true).length;
  }

  write(request: ModbusRequestDefinition): Promise<number> {
    const port = request.port ?? DEFAULTS.modbusPort;
    const key = `${request.host}:${port}`;
    let entry = this.pool.get(key);
    if (!entry) {
      entry = { client: undefined, queue: Promise.resolve(), idleTimer: undefined };
      this.pool.set(key, entry);
    }
    const pooled = entry;
    const run = pooled.queue.then(() => this.writeOn(pooled, key, request));
    pooled.queue = run.catch(() => undefined);
    return run;
  }

  /** Closes every connection now (the actions stopped); a write still waiting fails. */
  close(): void {
    for (const entry of this.pool.values()) this.closeEntry(entry);
    this.pool.clear();
  }

  private async writeOn(
    entry: PooledConnection,
    key: string,
    request: ModbusRequestDefinition,
  ): Promise<number> {
    if (entry.idleTimer) this.clock.clearTimeout(entry.idleTimer);
    const type: ValueType = request.type ?? DEFAULTS.type;
    const encoded = payloadFor(request.func, request.value, type);
    if (!encoded.ok || !encoded.payload) {
      this.log.warn(
        `action Modbus write to ${key}: value ${JSON.stringify(request.value)} ${encoded.ok ? '' : encoded.message}`,
      );
      return CODE.invalid;
    }
    const timeoutMs = (request.timeout ?? DEFAULTS.modbusTimeoutSeconds) * 1000;
    try {
      const client = await this.connected(
        entry,
        request.host,
        request.port ?? DEFAULTS.modbusPort,
        timeoutMs,
      );
      client.setID(request.unit_id ?? DEFAULTS.unitId);
      client.setTimeout(timeoutMs);
      const { payload } = encoded;
      if ('coils' in payload) {
        if (request.func === 5) await client.writeCoil(request.address, payload.coils[0]!);
        else await client.writeCoils(request.address, payload.coils);
      } else if (request.func === 6) await client.writeRegister(request.address, payload.registers[0]!);
      else await client.writeRegisters(request.address, payload.registers);
      return CODE.ok;
    } catch (error) {
      return this.failure(entry, key, request, error as ModbusFailure);
    } finally {
      this.scheduleIdleClose(entry, key);
    }
  }

  private failure(
    entry: PooledConnection,
    key: string,
    request: ModbusRequestDefinition,
    error: ModbusFailure,
  ): number {
    const what = `action Modbus FC ${request.func} to ${key} unit ${request.unit_id ?? DEFAULTS.unitId} address ${request.address}`;
    if (typeof error.modbusCode === 'number') {
      this.log.warn(`${what}: exception ${error.modbusCode} (${error.message})`);
      return modbusExceptionCode(error.modbusCode);
    }
    // Anything but an exception answer leaves the connection in doubt: the next write reconnects.
    this.closeEntry(entry);
    if (error.errno === 'ETIMEDOUT' || error.message === 'Timed out' || error.message === 'connect timeout') {
      this.log.warn(`${what}: no answer in time`);
      return CODE.timeout;
    }
    this.log.warn(`${what}: ${error.message}`);
    // modbus-serial passes the socket's error (code ECONNREFUSED, ENOTFOUND...) or its own with an errno.
    return networkFailureCode(error.code ?? (typeof error.errno === 'string' ? error.errno : undefined));
  }

  private async connected(
    entry: PooledConnection,
    host: string,
    port: number,
    timeoutMs: number,
  ): Promise<ModbusMaster> {
    if (entry.client?.isOpen) return entry.client;
    this.closeEntry(entry);
    const client: ModbusMaster = await newSerialClient();
    entry.client = client;
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.clock.setTimeout(() => reject(new Error('connect timeout')), timeoutMs);
    });
    try {
      await Promise.race([client.connectTCP(host, { port }), timeout]);
    } finally {
      this.clock.clearTimeout(timer);
    }
    return client;
  }

  private scheduleIdleClose(entry: PooledConnection, key: string): void {
    if (entry.idleTimer) this.clock.clearTimeout(entry.idleTimer);
    entry.idleTimer = this.clock.setTimeout(() => {
      entry.idleTimer = undefined;
      this.closeEntry(entry);
      if (this.pool.get(key) === entry) this.pool.delete(key);
    }, IDLE_CLOSE_MS);
    entry.idleTimer.unref();
  }

  private closeEntry(entry: PooledConnection): void {
    if (entry.idleTimer) this.clock.clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const client = entry.client;
    entry.client = undefined;
    if (client) client.close(() => undefined);
  }
}
