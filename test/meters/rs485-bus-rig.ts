import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { SerialPort } from 'serialport';
import { PYTHON } from '../modbus/rtu-rig.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';
import { SDM630_VALUES, startPymodbusMeter, stopPymodbusMeter } from '../meter/modbus/pymodbus-meter.js';

/**
 * One RS485 bus in a test: the gateway opens `hostPath` of one socat pty pair; a hub on the other
 * end passes every byte the master sends to each unit's own pty pair, where an independent
 * pymodbus server answers for its unit id only, and passes their replies back (a multi-drop line:
 * every slave hears the master, the addressed one answers). The hub times the traffic: request
 * starts, reply ends, and the master's requests overlapping an unanswered one.
 */
export interface BusTraffic {
  /** [time, unit] of every request the master started. */
  requests: Array<[number, number]>;
  /** Time the last reply byte came back. */
  replyEnds: number[];
  /** The shortest pause between a reply's end and the master's next request, ms. */
  shortestSilenceMs: number;
}

/** SDM630 values of unit n: the test map scaled, so every meter reads differently. */
export function unitValues(unit: number): Record<number, number> {
  return Object.fromEntries(
    Object.entries(SDM630_VALUES).map(([address, value]) => [
      address,
      unit === 1 ? value : value * (1 + unit / 10),
    ]),
  );
}

export class Rs485Bus {
  readonly traffic: BusTraffic = { requests: [], replyEnds: [], shortestSilenceMs: Infinity };
  private readonly dir = tempDir('mg-rs485-');
  private readonly master = new SocatPty(this.dir + '/m');
  private readonly drops = new Map<number, { pty: SocatPty; port?: SerialPort; server?: ChildProcess }>();
  private hub: SerialPort | undefined;
  private replyTimer: NodeJS.Timeout | undefined;
  private lastReplyAt = 0;

  get hostPath(): string {
    return this.master.hostPath;
  }

  async start(units: readonly number[]): Promise<void> {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(this.dir + '/m');
    await this.master.start();
    this.hub = await openPort(this.master.meterPath);
    // The units start side by side (each a socat and a python process of its own): no unit waits
    // on another's start-up.
    await Promise.all(
      units.map(async (unit) => {
        mkdirSync(`${this.dir}/u${unit}`);
        const pty = new SocatPty(`${this.dir}/u${unit}`);
        const drop: { pty: SocatPty; port?: SerialPort; server?: ChildProcess } = { pty };
        this.drops.set(unit, drop);
        await pty.start();
        drop.port = await openPort(pty.hostPath);
        drop.port.on('data', (chunk: Buffer) => this.reply(chunk));
        drop.server = await startPymodbusMeter(PYTHON, pty.meterPath, unit, unitValues(unit));
      }),
    );
    this.hub.on('data', (chunk: Buffer) => this.request(chunk));
  }

  /** Master -> every unit; a chunk starting after a pause of 2 ms or more is a new request. */
  private request(chunk: Buffer): void {
    const now = performance.now();
    const last = this.traffic.requests.at(-1);
    if (!last || now - last[0] > 2) {
      this.traffic.requests.push([now, chunk[0]!]);
      if (this.lastReplyAt > 0) {
        this.traffic.shortestSilenceMs = Math.min(this.traffic.shortestSilenceMs, now - this.lastReplyAt);
      }
    }
    for (const drop of this.drops.values()) drop.port?.write(chunk);
  }

  private reply(chunk: Buffer): void {
    this.lastReplyAt = performance.now();
    this.hub?.write(chunk);
    if (this.replyTimer) this.replyTimer.refresh();
    else
      this.replyTimer = setTimeout(() => {
        this.replyTimer = undefined;
        this.traffic.replyEnds.push(this.lastReplyAt);
      }, 2);
  }

  /** Stops one unit's server: it no longer answers, as a meter that lost power. */
  async stopUnit(unit: number): Promise<void> {
    const drop = this.drops.get(unit);
    if (drop?.server) await stopPymodbusMeter(drop.server);
    if (drop) drop.server = undefined;
  }

  /** Starts a stopped unit's server again on its own line: it answers as before. */
  async restartUnit(unit: number): Promise<void> {
    const drop = this.drops.get(unit);
    if (!drop || drop.server) return;
    drop.server = await startPymodbusMeter(PYTHON, drop.pty.meterPath, unit, unitValues(unit));
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.drops.values()].map(async (drop) => {
        if (drop.server) await stopPymodbusMeter(drop.server);
        await closePort(drop.port);
        await drop.pty.stop();
      }),
    );
    await closePort(this.hub);
    await this.master.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function openPort(path: string): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path, baudRate: 9600 }, (error) => (error ? reject(error) : resolve(port)));
  });
}

function closePort(port: SerialPort | undefined): Promise<void> {
  if (!port?.isOpen) return Promise.resolve();
  return new Promise((resolve) => port.close(() => resolve()));
}
