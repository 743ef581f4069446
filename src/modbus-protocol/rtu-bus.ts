import { closeClient } from './client-close.js';
import { interFrameMs } from './rtu-frame.js';
import { delay, systemClock, type Clock, type Timer } from '../clock.js';

/**
 * What a unit's work may do on the bus: read (the meters) and write registers (an inverter the
 * export limiter drives on the same bus; docs/architecture.md#shared-rs485-bus).
 */
export interface RegisterClient {
  readInputRegisters(address: number, length: number): Promise<{ buffer: Buffer }>;
  readHoldingRegisters(address: number, length: number): Promise<{ buffer: Buffer }>;
  writeRegisters(address: number, values: number[]): Promise<unknown>;
}

/** The line of one RS485 bus: every unit on it shares these settings. */
export interface BusLine {
  path: string;
  baudRate: number;
  parity: 'none' | 'even' | 'odd';
  stopBits: number;
}

/** What the bus needs of modbus-serial's client. */
export type BusClient = RegisterClient & {
  setID(id: number): void;
  setTimeout(ms: number): void;
  close(callback: () => void): void;
  on(event: 'close', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  removeAllListeners(): void;
  connectRTUBuffered(
    path: string,
    options: { baudRate: number; parity: 'none' | 'even' | 'odd'; stopBits: number; dataBits: number },
  ): Promise<void>;
};

/**
 * The silence the bus master keeps between two transactions: t3.5 (Modbus over Serial Line V1.02
 * §2.5.1.1) of a character of the 11 bits an RTU character has by §2.3 (start, 8 data, parity or a
 * second stop bit, stop), whatever the line's own framing: a master waits the longer of the two.
 */
export function interFrameSilenceMs(baudRate: number): number {
  return interFrameMs(baudRate, 'even', 1);
}

/** One unit's use of a bus (a meter's, or an inverter's). `lost` is called when the port goes away under it. */
export interface BusLease {
  /** Reads of one unit, run when it is this lease's turn; every request keeps the silence. */
  transact<T>(unitId: number, work: (client: RegisterClient) => Promise<T>): Promise<T>;
  release(): Promise<void>;
}

/** The serial port under modbus-serial's buffered RTU port: its drain waits for tcdrain(3). */
interface DrainablePort {
  drain(callback: (error?: Error | null) => void): void;
}

/**
 * modbus-serial keeps the serial port of its RTU transports as `_port._client` (the serialport
 * package's SerialPort); undefined when this client has none (a test double), which keeps
 * modbus-serial's own response timer.
 */
function drainablePortOf(client: BusClient): DrainablePort | undefined {
  const transport = '_port' in client ? client._port : undefined;
  const port =
    typeof transport === 'object' && transport !== null && '_client' in transport
      ? transport._client
      : undefined;
  return isDrainable(port) ? port : undefined;
}

function isDrainable(port: unknown): port is DrainablePort {
  return typeof port === 'object' && port !== null && 'drain' in port && typeof port.drain === 'function';
}

/** A response timeout as modbus-serial reports one (its TransactionTimedOutError's errno). */
function responseTimeout(ms: number): Error {
  return Object.assign(new Error(`Timed out: no reply within ${ms} ms`), { errno: 'ETIMEDOUT' });
}

/** A response timer firing this much late means the event loop was blocked meanwhile. */
const STALL_MS = 20;
/** The time a reply already received gets to reach the client after such a stall. */
const GRACE_MS = 100;

interface Job {
  unitId: number;
  work: (client: RegisterClient) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * One RS485 bus shared by several `modbus-rtu:` meters and inverters (docs/architecture.md#shared-rs485-bus):
 * opened by its first user, closed by its last; transactions strictly one at a time, first asked
 * first served (each meter has at most one waiting, so the order is a fair round robin), with the
 * inter-frame silence before every request.
 */
class RtuBus {
  private client: BusClient | undefined;
  /** The port whose drain starts the response timer; undefined: modbus-serial's timer. */
  private port: DrainablePort | undefined;
  private opening: Promise<void> | undefined;
  private readonly lostHandlers = new Set<(reason: Error) => void>();
  private readonly queue: Job[] = [];
  private busy = false;
  /** When the last reply (or timeout) ended, for the silence before the next request. */
  private lastEnd = 0;
  private readonly silenceMs: number;

  constructor(
    readonly line: BusLine,
    private readonly newClient: () => Promise<BusClient>,
    private readonly responseTimeoutMs: number,
    private readonly forget: (bus: RtuBus) => void,
    private readonly clock: Clock = systemClock,
  ) {
    this.silenceMs = interFrameSilenceMs(line.baudRate);
  }

  async join(lost: (reason: Error) => void): Promise<BusLease> {
    this.lostHandlers.add(lost);
    try {
      this.opening ??= this.open();
      await this.opening;
    } catch (error) {
      this.lostHandlers.delete(lost);
      throw error;
    }
    let released = false;
    return {
      transact: <T>(unitId: number, work: (client: RegisterClient) => Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          if (released || !this.client) return reject(new Error('Port Not Open'));
          this.queue.push({ unitId, work, resolve: resolve as (value: unknown) => void, reject });
          this.next();
        }),
      release: async () => {
        if (released) return;
        released = true;
        this.lostHandlers.delete(lost);
        if (this.lostHandlers.size === 0) await this.close();
      },
    };
  }

  private async open(): Promise<void> {
    const client = await this.newClient();
    client.on('error', () => undefined); // port errors surface as failed requests or 'close'
    try {
      await client.connectRTUBuffered(this.line.path, {
        baudRate: this.line.baudRate,
        parity: this.line.parity,
        stopBits: this.line.stopBits,
        dataBits: 8,
      });
    } catch (error) {
      this.forget(this);
      throw error;
    }
    // The response timer starts when the request's last byte is on the wire (see `timed`), not
    // when modbus-serial hands the request to the port: under load the write itself can wait.
    this.port = drainablePortOf(client);
    client.setTimeout(this.port ? 0 : this.responseTimeoutMs);
    client.on('close', () => this.lose(new Error('port closed')));
    this.client = client;
  }

  private next(): void {
    if (this.busy) return;
    const job = this.queue.shift();
    if (!job) return;
    const client = this.client;
    if (!client) {
      job.reject(new Error('Port Not Open'));
      return this.next();
    }
    this.busy = true;
    client.setID(job.unitId);
    job
      .work(this.silentClient(client))
      .then(job.resolve, job.reject)
      .finally(() => {
        this.busy = false;
        this.next();
      });
  }

  /** The client with the inter-frame silence kept before each request. */
  private silentClient(client: BusClient): RegisterClient {
    const request = async <T>(send: () => Promise<T>): Promise<T> => {
      const wait = this.lastEnd + this.silenceMs - performance.now();
      if (wait > 0) await delay(this.clock, Math.ceil(wait));
      try {
        return await this.timed(send);
      } finally {
        this.lastEnd = performance.now();
      }
    };
    return {
      readInputRegisters: (address, length) => request(() => client.readInputRegisters(address, length)),
      readHoldingRegisters: (address, length) => request(() => client.readHoldingRegisters(address, length)),
      writeRegisters: (address, values) => request(() => client.writeRegisters(address, values)),
    };
  }

  /**
   * One request with its response timeout (docs/architecture.md#shared-rs485-bus): the timer starts
   * once the port has drained (the OS says the last byte is transmitted), so the time the request
   * waited for the port, or for an event loop busy elsewhere, is never counted against the unit.
   * A timer that fires late by more than STALL_MS (the event loop was blocked) gives the port
   * GRACE_MS more to deliver a reply that arrived meanwhile.
   */
  private timed<T>(send: () => Promise<T>): Promise<T> {
    const port = this.port;
    if (!port) return send();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let timer: Timer | undefined;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.clock.clearTimeout(timer);
        return true;
      };
      send().then(
        (value) => {
          if (settle()) resolve(value);
        },
        (error: unknown) => {
          if (settle()) reject(error);
        },
      );
      // Armed for `ms`; when it fires late (the loop was blocked), the reply may be waiting in the
      // port's read, which needs a few loop turns: a short grace, again as long as the loop stalls.
      const arm = (ms: number): void => {
        const due = performance.now() + ms;
        timer = this.clock.setTimeout(() => {
          if (settled) return;
          if (performance.now() - due > STALL_MS) return arm(GRACE_MS);
          if (settle()) reject(responseTimeout(this.responseTimeoutMs));
        }, ms);
      };
      port.drain(() => {
        if (!settled) arm(this.responseTimeoutMs);
      });
    });
  }

  private lose(reason: Error): void {
    const handlers = [...this.lostHandlers];
    this.lostHandlers.clear();
    void this.close();
    for (const lost of handlers) lost(reason);
  }

  private async close(): Promise<void> {
    this.forget(this);
    const client = this.client;
    this.client = undefined;
    for (const job of this.queue.splice(0)) job.reject(new Error('Port Not Open'));
    if (client) await closeClient(client, this.clock);
  }
}

/**
 * The open buses by device path. A serial device has one opener in this process, whichever meter
 * asks first, so the table lives as long as the process, like the devices it stands for.
 */
const buses = new Map<string, RtuBus>();

/**
 * Joins the bus on `line.path`, opening it when this is its first user. A bus already open with
 * other line settings is refused (the configuration refuses it first).
 */
export async function joinRtuBus(
  line: BusLine,
  newClient: () => Promise<BusClient>,
  responseTimeoutMs: number,
  lost: (reason: Error) => void,
  clock: Clock = systemClock,
): Promise<BusLease> {
  let bus = buses.get(line.path);
  if (bus) {
    const open = bus.line;
    if (open.baudRate !== line.baudRate || open.parity !== line.parity || open.stopBits !== line.stopBits)
      throw new Error(`${line.path} is already open with other line settings (${open.baudRate} baud)`);
  } else {
    bus = new RtuBus(
      line,
      newClient,
      responseTimeoutMs,
      (gone) => {
        if (buses.get(gone.line.path) === gone) buses.delete(gone.line.path);
      },
      clock,
    );
    buses.set(line.path, bus);
  }
  return bus.join(lost);
}
