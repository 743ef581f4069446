// A simulated PV inverter for the export limiter's tests: a Modbus TCP server on 127.0.0.1 (node:net)
// serving a SunSpec map (models 1, 103, 120, 123 and optionally 704; layouts from the SunSpec model
// definitions, see src/export-limiter/sunspec.ts), whose output follows its active power limit after
// a dead time and with a ramp, all on the test's clock (docs/architecture.md#clock). `vendor` adds a
// vendor's own control map (src/export-limiter/vendors.ts): SolarEdge EDPC beside SunSpec model 103,
// Huawei SUN2000 (output 32080, feed-in limit 47415/47418), or a Victron GX whose ESS holds the grid
// at its setpoint (2700) by curtailing PV against the house load.
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import type { Clock } from '../../src/clock.js';
import { M103, M120, M123, M704 } from '../../src/export-limiter/sunspec.js';
import { crcMatches, sealFrame } from '../../src/modbus-protocol/rtu-frame.js';
import {
  float32LowFirst,
  HUAWEI,
  int32LowFirst,
  readFloat32LowFirst,
  SOLAREDGE,
  uint32LowFirst,
  VICTRON,
  wordInt16,
} from '../../src/export-limiter/vendors.js';

export type Vendor = 'sunspec' | 'solaredge' | 'huawei' | 'victron';

export interface SimulatedInverterOptions {
  clock: Clock;
  /** Rated output (model 120 WRtg), W. */
  wmaxW?: number;
  /** PV power available at a time (W). */
  pv?: (time: number) => number;
  /** Time from a new limit to the output starting to move, ms. */
  deadTimeMs?: number;
  /** How fast the output follows, W per second. */
  rampWPerS?: number;
  /** Serve model 704 (DER AC controls) beside 123. */
  model704?: boolean;
  /** WMaxLimPct_SF of models 123 and 704. */
  limitSf?: number;
  /** A limit the installer set before the gateway came (%), enabled in 123 (and 704). */
  installerPct?: number;
  /** Accept one Modbus TCP client at a time: a second connection is reset at once. */
  singleClient?: boolean;
  /** The W register shows the output of this long ago (inverters report averaged, late values). */
  reportLagMs?: number;
  /** The W register shows the output times this (an inverter whose own report is off; default 1). */
  reportScale?: number;
  /** The control map served (default sunspec). */
  vendor?: Vendor;
  /** SolarEdge: 0xF142 AdvancedPwrControlEn (default on). */
  advancedPowerControl?: boolean;
  /** Victron: the house load (W) the ESS holds the grid against; the initial grid setpoint (W). */
  load?: (time: number) => number;
  setpointW?: number;
}

/** One write as the inverter received it. */
export interface LoggedWrite {
  at: number;
  fc: number;
  address: number;
  words: number[];
}

/** Misbehaviours for the hostile-input cases. */
export type Fault = 'none' | 'exception' | 'garbage' | 'nan' | 'dead_on_write' | 'silent';

export const BASE = 40000;
const MODEL1_L = 66;
const MODEL103_L = 50;
const MODEL120_L = 26;

export class SimulatedInverter {
  readonly wmaxW: number;
  readonly writes: LoggedWrite[] = [];
  readonly address: Record<'m1' | 'm103' | 'm120' | 'm123' | 'm704', number>;
  fault: Fault = 'none';
  connections = 0;
  refused = 0;
  /** RTU requests addressed to this unit. */
  rtuRequests = 0;
  private readonly rtuPorts: { isOpen: boolean; close(callback: () => void): void }[] = [];
  private readonly registers = new Map<number, number>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly clock: Clock;
  private readonly pv: (time: number) => number;
  private readonly deadTimeMs: number;
  private readonly rampWPerS: number;
  private readonly sf: number;
  private readonly has704: boolean;
  /** Limit (% of WMax) in force from a time on, oldest first: what the output follows after the dead time. */
  private readonly limits: { from: number; pct: number }[] = [];
  private output = 0;
  private updatedAt: number;
  private readonly reportLagMs: number;
  /** Output samples of the last reportLagMs (time, W), oldest first. */
  private readonly samples: { at: number; w: number }[] = [];
  private revert123At: number | undefined;
  private revert704At: number | undefined;
  private revertEdpcAt: number | undefined;
  readonly vendor: Vendor;
  private readonly load: (time: number) => number;
  private readonly reportScale: number;
  port = 0;

  constructor(options: SimulatedInverterOptions) {
    this.clock = options.clock;
    this.wmaxW = options.wmaxW ?? 5000;
    this.pv = options.pv ?? (() => 3000);
    this.deadTimeMs = options.deadTimeMs ?? 5000;
    this.rampWPerS = options.rampWPerS ?? this.wmaxW;
    this.sf = options.limitSf ?? -1;
    this.has704 = options.model704 ?? false;
    this.reportLagMs = options.reportLagMs ?? 0;
    this.vendor = options.vendor ?? 'sunspec';
    this.load = options.load ?? (() => 0);
    this.reportScale = options.reportScale ?? 1;
    this.updatedAt = this.clock.now();
    let at = BASE;
    const put = (words: number[]) =>
      words.forEach((word, index) => this.registers.set(at + index, word & 0xffff));
    put([0x5375, 0x6e53]);
    at += 2;
    const m1 = at;
    put([1, MODEL1_L, ...new Array<number>(MODEL1_L).fill(0)]);
    at += 2 + MODEL1_L;
    const m103 = at;
    put([103, MODEL103_L, ...new Array<number>(MODEL103_L).fill(0)]);
    at += 2 + MODEL103_L;
    const m120 = at;
    put([120, MODEL120_L, ...new Array<number>(MODEL120_L).fill(0)]);
    this.registers.set(m120 + M120.WRtg, this.wmaxW);
    this.registers.set(m120 + M120.WRtg_SF, 0);
    at += 2 + MODEL120_L;
    const m123 = at;
    put([123, M123.LENGTH, ...new Array<number>(M123.LENGTH).fill(0)]);
    this.registers.set(m123 + M123.WMaxLimPct, this.raw(100));
    this.registers.set(m123 + M123.WMaxLimPct_SF, this.sf & 0xffff);
    at += 2 + M123.LENGTH;
    let m704 = 0;
    if (this.has704) {
      m704 = at;
      put([704, M704.LENGTH, ...new Array<number>(M704.LENGTH).fill(0)]);
      this.registers.set(m704 + M704.WMaxLimPct, this.raw(100));
      this.registers.set(m704 + M704.WMaxLimPctRvrt, this.raw(100));
      this.registers.set(m704 + M704.WMaxLimPct_SF, this.sf & 0xffff);
      at += 2 + M704.LENGTH;
    }
    put([0xffff, 0]);
    this.address = { m1, m103, m120, m123, m704 };
    this.putVendorMap(options);
    if (options.installerPct !== undefined && this.vendor === 'sunspec') {
      this.registers.set(m123 + M123.WMaxLimPct, this.raw(options.installerPct));
      this.registers.set(m123 + M123.WMaxLim_Ena, 1);
      if (this.has704) {
        this.registers.set(m704 + M704.WMaxLimPct, this.raw(options.installerPct));
        this.registers.set(m704 + M704.WMaxLimPctEna, 1);
      }
    }
    this.limits.push({ from: Number.NEGATIVE_INFINITY, pct: this.limitPctNow() });
    this.output = Math.min(this.pv(this.updatedAt), (this.limitPctNow() / 100) * this.wmaxW);
    this.writeOutput();
    this.server = createServer((socket) => this.accept(socket, options.singleClient ?? false));
  }

  async listen(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** Where the gateway reaches it: a Victron GX on unit 100 (its ESS settings' unit), others on 1. */
  get source(): string {
    return `modbus-tcp://127.0.0.1:${this.port}?unit=${this.vendor === 'victron' ? 100 : 1}`;
  }

  async close(): Promise<void> {
    for (const port of this.rtuPorts.splice(0))
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }

  /** Drops every client connection (a dead link from the gateway's side). */
  dropClients(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** The limit in force now (%), from the registers: 704 when enabled, else 123 when enabled, else 100. */
  limitPctNow(): number {
    this.update();
    return this.limitFromRegisters();
  }

  /** The output now (W), with dead time and ramp applied up to the clock's time. */
  outputW(): number {
    this.update();
    return this.output;
  }

  /** The raw register (tests inspect the revert and the enables). */
  register(address: number): number | undefined {
    this.update();
    return this.registers.get(address);
  }

  /** Brings the output and the revert timers to the clock's time, in steps of at most 50 ms. */
  update(): void {
    const now = this.clock.now();
    while (this.updatedAt < now) {
      const next = Math.min(now, this.updatedAt + 50);
      this.expireReverts(next);
      const pct = this.limitAt(next - this.deadTimeMs);
      const target =
        this.vendor === 'victron'
          ? Math.max(0, Math.min(this.pv(next), this.load(next) - this.setpointW()))
          : Math.max(0, Math.min(this.pv(next), (pct / 100) * this.wmaxW));
      const step = (this.rampWPerS * (next - this.updatedAt)) / 1000;
      this.output =
        target > this.output ? Math.min(target, this.output + step) : Math.max(target, this.output - step);
      this.updatedAt = next;
      if (this.reportLagMs > 0) {
        this.samples.push({ at: next, w: this.output });
        while (this.samples.length > 1 && this.samples[1]!.at <= next - this.reportLagMs)
          this.samples.shift();
      }
    }
    this.writeOutput();
  }

  private raw(pct: number): number {
    return Math.round(pct / 10 ** this.sf);
  }

  /** The vendor's own registers (addresses and encodings from src/export-limiter/vendors.ts). */
  private putVendorMap(options: SimulatedInverterOptions): void {
    const set = (address: number, words: number[]) =>
      words.forEach((word, index) => this.registers.set(address + index, word & 0xffff));
    const installer = options.installerPct;
    if (this.vendor === 'solaredge') {
      set(SOLAREDGE.ADVANCED_PWR_CONTROL_EN, [options.advancedPowerControl === false ? 0 : 1, 0]);
      set(SOLAREDGE.ENABLE_DPC, new Array<number>(0x26).fill(0));
      set(SOLAREDGE.ENABLE_DPC, [installer === undefined ? 0 : 1]);
      set(SOLAREDGE.MAX_ACTIVE_POWER, float32LowFirst(this.wmaxW));
      set(SOLAREDGE.COMMAND_TIMEOUT, uint32LowFirst(60));
      set(SOLAREDGE.FALLBACK_LIMIT, float32LowFirst(100));
      set(SOLAREDGE.DYNAMIC_LIMIT, float32LowFirst(installer ?? 100));
    } else if (this.vendor === 'huawei') {
      set(HUAWEI.RATED_POWER, [0, this.wmaxW, 0, this.wmaxW]);
      set(HUAWEI.ACTIVE_POWER, [0, 0]);
      set(HUAWEI.CONTROL_MODE, [
        installer === undefined ? HUAWEI.MODE_UNLIMITED : HUAWEI.MODE_PERCENT,
        0,
        0,
        Math.round((installer ?? 100) * 10),
      ]);
    } else if (this.vendor === 'victron') {
      set(VICTRON.GRID_SETPOINT, [(options.setpointW ?? 50) & 0xffff, 0, 0, 0, 0, 0]);
      set(VICTRON.PV_AC_OUT, [0, 0, 0, 0xffff, 0xffff, 0xffff]);
      set(VICTRON.PV_DC, [0xffff]);
    }
  }

  private limitFromRegisters(): number {
    const word = (address: number) => this.registers.get(address);
    if (this.vendor === 'solaredge') {
      if (word(SOLAREDGE.ENABLE_DPC) !== 1) return 100;
      const limit = readFloat32LowFirst(word(SOLAREDGE.DYNAMIC_LIMIT), word(SOLAREDGE.DYNAMIC_LIMIT + 1));
      return Math.min(100, Math.max(0, limit ?? 100));
    }
    if (this.vendor === 'huawei') {
      const mode = word(HUAWEI.CONTROL_MODE);
      if (mode === HUAWEI.MODE_PERCENT) return (wordInt16(word(HUAWEI.FEED_GRID_PCT)) ?? 1000) / 10;
      if (mode === HUAWEI.MODE_ZERO) return 0;
      return 100;
    }
    if (this.vendor === 'victron') return 100;
    const pctOf = (word: number | undefined) => (word ?? 0) * 10 ** this.sf;
    if (this.has704 && this.registers.get(this.address.m704 + M704.WMaxLimPctEna) === 1)
      return pctOf(this.registers.get(this.address.m704 + M704.WMaxLimPct));
    if (this.registers.get(this.address.m123 + M123.WMaxLim_Ena) === 1)
      return pctOf(this.registers.get(this.address.m123 + M123.WMaxLimPct));
    return 100;
  }

  private limitAt(time: number): number {
    let pct = 100;
    for (const entry of this.limits) if (entry.from <= time) pct = entry.pct;
    return pct;
  }

  private noteLimit(at: number): void {
    const pct = this.limitFromRegisters();
    if (this.limits.at(-1)!.pct !== pct) this.limits.push({ from: at, pct });
    // Entries older than the dead time beyond the newest applicable one are not needed.
    while (this.limits.length > 2 && this.limits[1]!.from <= at - this.deadTimeMs - 1000) this.limits.shift();
  }

  /** The Victron GX's grid setpoint (W). */
  setpointW(): number {
    return wordInt16(this.registers.get(VICTRON.GRID_SETPOINT)) ?? 0;
  }

  /**
   * SunSpec revert semantics: 123 cancels the limit, 704 takes WMaxLimPctRvrt and WMaxLimPctEnaRvrt;
   * SolarEdge EDPC takes FallbackActivePowerLimit after CommandTimeout without a dynamic command.
   */
  private expireReverts(time: number): void {
    if (this.revertEdpcAt !== undefined && time >= this.revertEdpcAt) {
      const at = this.revertEdpcAt;
      this.revertEdpcAt = undefined;
      this.registers.set(SOLAREDGE.DYNAMIC_LIMIT, this.registers.get(SOLAREDGE.FALLBACK_LIMIT) ?? 0);
      this.registers.set(SOLAREDGE.DYNAMIC_LIMIT + 1, this.registers.get(SOLAREDGE.FALLBACK_LIMIT + 1) ?? 0);
      this.noteLimit(at);
    }
    if (this.revert123At !== undefined && time >= this.revert123At) {
      const at = this.revert123At;
      this.revert123At = undefined;
      this.registers.set(this.address.m123 + M123.WMaxLim_Ena, 0);
      this.noteLimit(at);
    }
    if (this.revert704At !== undefined && time >= this.revert704At) {
      const at = this.revert704At;
      this.revert704At = undefined;
      const base = this.address.m704;
      this.registers.set(base + M704.WMaxLimPct, this.registers.get(base + M704.WMaxLimPctRvrt) ?? 0);
      this.registers.set(base + M704.WMaxLimPctEna, this.registers.get(base + M704.WMaxLimPctEnaRvrt) ?? 0);
      this.noteLimit(at);
    }
  }

  private writeOutput(): void {
    const reported =
      (this.reportLagMs > 0 && this.samples.length > 0 ? this.samples[0]!.w : this.output) * this.reportScale;
    const w = this.fault === 'nan' ? 0x8000 : Math.round(reported) & 0xffff;
    this.registers.set(this.address.m103 + M103.W, w);
    this.registers.set(this.address.m103 + M103.W_SF, 0);
    if (this.vendor === 'huawei') {
      const watts = this.fault === 'nan' ? 0x7fffffff : Math.round(reported);
      this.registers.set(HUAWEI.ACTIVE_POWER, (watts >> 16) & 0xffff);
      this.registers.set(HUAWEI.ACTIVE_POWER + 1, watts & 0xffff);
    } else if (this.vendor === 'victron')
      this.registers.set(VICTRON.PV_AC_OUT, Math.round(reported) & 0xffff);
  }

  private accept(socket: Socket, singleClient: boolean): void {
    if (singleClient && this.sockets.size > 0) {
      this.refused += 1;
      socket.resetAndDestroy();
      return;
    }
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 8) {
        const length = buffer.readUInt16BE(4);
        if (buffer.length < 6 + length) break;
        const frame = buffer.subarray(0, 6 + length);
        buffer = buffer.subarray(6 + length);
        this.answer(socket, frame);
      }
    });
  }

  private answer(socket: Socket, frame: Buffer): void {
    this.update();
    const header = frame.subarray(0, 7);
    if (this.fault === 'silent') return;
    if (this.fault === 'garbage') {
      socket.write(Buffer.from([0x13, 0x37, 0xff, 0xff, 0x00, 0x02, 0x99, 0x03]));
      return;
    }
    const pdu = this.respond(frame.subarray(7), () => socket.destroy());
    if (!pdu) return;
    const out = Buffer.alloc(7 + pdu.length);
    header.copy(out, 0, 0, 7);
    out.writeUInt16BE(pdu.length + 1, 4);
    pdu.copy(out, 7);
    socket.write(out);
  }

  /**
   * Serves the same map as a Modbus RTU slave with unit id `unit` on the serial device `path` (the
   * far end of a socat pty pair): frames addressed to other units are ignored, as on a multi-drop
   * RS485 line; a frame with a wrong CRC is discarded (Modbus over Serial Line V1.02 §2.5.1.2).
   */
  async serveRtu(path: string, unit: number): Promise<void> {
    const { SerialPort } = await import('serialport');
    const port = await new Promise<InstanceType<typeof SerialPort>>((resolve, reject) => {
      const opened = new SerialPort({ path, baudRate: 9600 }, (error) =>
        error ? reject(error) : resolve(opened),
      );
    });
    this.rtuPorts.push(port);
    let buffer = Buffer.alloc(0);
    port.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (buffer.length < 8) return;
        const fc = buffer[1]!;
        const length = fc === 16 ? (buffer.length >= 7 ? 9 + buffer[6]! : 0) : 8;
        if (length === 0 || buffer.length < length) return;
        const frame = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (!crcMatches(frame, 0, length) || frame[0] !== unit) continue;
        this.update();
        this.rtuRequests += 1;
        if (this.fault === 'silent') continue;
        const pdu = this.respond(frame.subarray(1, length - 2), () => undefined);
        if (!pdu) continue;
        const out = Buffer.alloc(pdu.length + 3);
        out[0] = unit;
        pdu.copy(out, 1);
        port.write(sealFrame(out));
      }
    });
  }

  /** The answer PDU to a request PDU (function code first); undefined: no answer. */
  private respond(pdu: Buffer, die: () => void): Buffer | undefined {
    const fc = pdu[0]!;
    const exception = (code: number) => Buffer.from([fc | 0x80, code]);
    if (this.fault === 'exception') return exception(4);
    if (fc === 3) {
      const address = pdu.readUInt16BE(1);
      const count = pdu.readUInt16BE(3);
      if (count < 1 || count > 125) return exception(3);
      const data = Buffer.alloc(2 + count * 2);
      data[0] = 3;
      data[1] = count * 2;
      for (let index = 0; index < count; index++) {
        const word = this.registers.get(address + index);
        if (word === undefined) return exception(2);
        data.writeUInt16BE(word, 2 + index * 2);
      }
      return data;
    }
    if (fc === 16 || fc === 6) {
      const address = pdu.readUInt16BE(1);
      const words: number[] = [];
      if (fc === 6) words.push(pdu.readUInt16BE(3));
      else
        for (let index = 0; index < pdu.readUInt16BE(3); index++) words.push(pdu.readUInt16BE(6 + index * 2));
      if (words.some((_word, index) => !this.registers.has(address + index))) return exception(2);
      const at = this.clock.now();
      this.writes.push({ at, fc, address, words });
      if (this.fault === 'dead_on_write') {
        die();
        return undefined;
      }
      words.forEach((word, index) => this.registers.set(address + index, word));
      this.armReverts(address, words.length, at);
      this.noteLimit(at);
      return Buffer.from(pdu.subarray(0, 5));
    }
    return exception(1);
  }

  /** A write touching a model's limit block (re)starts its revert timer from the time register. */
  private armReverts(address: number, count: number, at: number): void {
    const touches = (from: number, to: number) => address <= to && address + count - 1 >= from;
    if (this.vendor === 'solaredge') {
      if (
        touches(SOLAREDGE.DYNAMIC_LIMIT, SOLAREDGE.DYNAMIC_LIMIT + 1) ||
        touches(SOLAREDGE.ENABLE_DPC, SOLAREDGE.ENABLE_DPC)
      ) {
        const timeout = SOLAREDGE.COMMAND_TIMEOUT;
        const seconds = int32LowFirst(this.registers.get(timeout), this.registers.get(timeout + 1)) ?? 0;
        this.revertEdpcAt = seconds > 0 ? at + seconds * 1000 : undefined;
      }
      return;
    }
    const m123 = this.address.m123;
    if (touches(m123 + M123.WMaxLimPct, m123 + M123.WMaxLim_Ena)) {
      const seconds = this.registers.get(m123 + M123.WMaxLimPct_RvrtTms) ?? 0;
      this.revert123At =
        seconds > 0 && this.registers.get(m123 + M123.WMaxLim_Ena) === 1 ? at + seconds * 1000 : undefined;
    }
    if (this.has704) {
      const m704 = this.address.m704;
      if (touches(m704 + M704.WMaxLimPctEna, m704 + M704.WMaxLimPctRvrtTms + 1)) {
        const seconds =
          (this.registers.get(m704 + M704.WMaxLimPctRvrtTms) ?? 0) * 0x10000 +
          (this.registers.get(m704 + M704.WMaxLimPctRvrtTms + 1) ?? 0);
        this.revert704At = seconds > 0 ? at + seconds * 1000 : undefined;
      }
    }
  }
}

/** Starts a simulated inverter on a loopback port. */
export async function startSimulatedInverter(options: SimulatedInverterOptions): Promise<SimulatedInverter> {
  const inverter = new SimulatedInverter(options);
  await inverter.listen();
  return inverter;
}
