import type { Logger } from '../log.js';
import type { Inverter } from './inverter.js';
import type { LimiterWrite } from './limiter-status.js';
import { LinkError } from './modbus-link.js';
import type { LimiterStateFile } from './state-file.js';
import type { RegisterWrite } from './sunspec.js';

/**
 * The inverter write path of the export limiter (docs/architecture.md#export-limiter): the first
 * contact (with the limit the gateway itself left behind), limit and setpoint writes bounded by the
 * installer's limit, the hand-back, and failures with their retry backoff. Every write goes out on
 * the limiter's `write` event, every change of an inverter's trouble on its `event`.
 */

/** An unreachable inverter is tried again no sooner than this (SolarEdge: one client, no faster than 5 s). */
export const RETRY_MIN_MS = 5000;
const RETRY_MAX_MS = 60_000;

/** Where the write path reports: the limiter's events. */
export interface WriteSink {
  write(write: LimiterWrite): void;
  event(at: number, type: string, message: string): void;
}

export class InverterIo {
  constructor(
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly sink: WriteSink,
    /** The settings' safe_pct, read at each write. */
    private readonly safePct: () => number,
    /** The state file of what the gateway found and left on the inverters, once the loop ran. */
    private readonly memory: () => LimiterStateFile | undefined,
  ) {}

  /** The first contact: the inverter's facts, with the installer's limit told from the gateway's own. */
  async probe(inverter: Inverter, now: number): Promise<void> {
    const facts = await inverter.driver.probe(inverter.setting.wmax_w);
    const memory = this.memory();
    // A limit the gateway itself left behind (a restart, a kill) is not an installer's.
    const remembered = memory?.get(inverter.setting.id, inverter.setting.source);
    if (remembered) {
      // Another limit than the installer's: the one the gateway left, which it now holds again.
      if (facts.installerPct !== null && facts.installerPct !== remembered.installer_pct)
        inverter.commandedPct = facts.installerPct;
      facts.installerPct = remembered.installer_pct;
      if (facts.setpointW !== undefined && remembered.setpoint_w !== undefined) {
        if (facts.setpointW !== remembered.setpoint_w) inverter.commandedW = facts.setpointW;
        facts.setpointW = remembered.setpoint_w;
      }
    } else
      memory?.set(inverter.setting.id, {
        source: inverter.setting.source,
        installer_pct: facts.installerPct,
        ...(facts.setpointW === undefined ? {} : { setpoint_w: facts.setpointW }),
      });
    inverter.facts = facts;
    inverter.reportedW = inverter.facts.outputW;
    const installer = inverter.facts.installerPct;
    this.sink.event(
      now,
      'inverter_found',
      `${inverter.setting.id}: ${inverter.facts.model === null ? inverter.setting.profile : `model ${inverter.facts.model}`}, WMax ${inverter.facts.wmaxW} W, output ${inverter.facts.outputW} W` +
        (inverter.facts.setpointW !== undefined
          ? `, grid setpoint ${inverter.facts.setpointW} W found`
          : installer === null
            ? ', no limit set'
            : `, installer limit ${installer} % kept as the ceiling`),
    );
  }

  /** An inverter whose pv_meter gives no output: not controlled (no write) until it does. */
  pvMeterMissing(inverter: Inverter, reason: string, now: number): void {
    if (inverter.state !== 'pv_meter_missing' || inverter.error !== reason) {
      this.log.warn(`export limiter: inverter ${inverter.setting.id}: ${reason}`);
      this.sink.event(now, 'pv_meter_missing', `${inverter.setting.id}: ${reason}`);
    }
    inverter.state = 'pv_meter_missing';
    inverter.error = reason;
    inverter.reportedW = null;
  }

  failed(inverter: Inverter, error: unknown, now: number): void {
    const failure =
      error instanceof LinkError
        ? error
        : new LinkError('connection', String((error as Error)?.message ?? error));
    inverter.failures += 1;
    inverter.consecutiveFailures += 1;
    const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(4, inverter.consecutiveFailures - 1));
    inverter.retryAt = now + wait;
    const state = failure.kind === 'busy' ? 'busy' : 'inverter_lost';
    if (inverter.state !== state || inverter.error !== failure.message) {
      this.log.warn(
        `export limiter: inverter ${inverter.setting.id}: ${failure.message}; next try in ${wait / 1000} s`,
      );
      this.sink.event(now, state, `${inverter.setting.id}: ${failure.message}`);
    }
    inverter.state = state;
    inverter.error = failure.message;
  }

  async setpoint(device: Inverter, watts: number, kind: LimiterWrite['kind'], now: number): Promise<void> {
    try {
      const block = await device.driver.writeSetpoint!(watts);
      device.commandedW = watts;
      this.recordWrite(device, kind, null, block, now);
      if (device.writeFailing) this.writesAgain(device);
    } catch (error) {
      device.writeFailing = true;
      this.failed(device, error, now);
    }
  }

  /** Hands the inverter back: the installer's limit restored, or the gateway's own limit cancelled. */
  async release(inverter: Inverter): Promise<void> {
    if (!inverter.facts) return;
    if (inverter.holdsSetpoint) {
      const found = inverter.facts.setpointW;
      if (inverter.commandedW !== null && found !== undefined) {
        await this.setpoint(inverter, found, 'restore', this.now());
        if (inverter.writeFailing) return;
      }
      inverter.commandedW = null;
      this.memory()?.forget(inverter.setting.id);
      return;
    }
    if (inverter.commandedPct === null) {
      // Never limited by the gateway: what the inverter holds is its own; read it afresh next time.
      this.memory()?.forget(inverter.setting.id);
      return;
    }
    const now = this.now();
    const installer = inverter.facts.installerPct;
    try {
      const block =
        installer === null
          ? await inverter.driver.cancel()
          : await inverter.driver.writeLimit(installer, installer, 0);
      this.recordWrite(inverter, installer === null ? 'cancel' : 'restore', installer, block, now);
      inverter.commandedPct = null;
      this.memory()?.forget(inverter.setting.id);
    } catch (error) {
      this.failed(inverter, error, now);
    }
  }

  async command(
    inverter: Inverter,
    percent: number,
    revertS: number,
    kind: LimiterWrite['kind'],
    now: number,
  ): Promise<void> {
    // Never above the installer's limit, whatever asked for it (safe_pct included).
    const bounded = Math.min(inverter.capPct, Math.max(0, percent));
    const safe = Math.min(inverter.capPct, this.safePct());
    try {
      const block = await inverter.driver.writeLimit(bounded, safe, revertS);
      inverter.commandedPct = bounded;
      this.recordWrite(inverter, kind, bounded, block, now);
      if (inverter.writeFailing) this.writesAgain(inverter);
    } catch (error) {
      inverter.writeFailing = true;
      this.failed(inverter, error, now);
    }
  }

  /** A write went through after failing ones: the inverter is under control again. */
  private writesAgain(inverter: Inverter): void {
    inverter.writeFailing = false;
    inverter.state = 'ok';
    inverter.error = null;
    inverter.consecutiveFailures = 0;
  }

  private recordWrite(
    inverter: Inverter,
    kind: LimiterWrite['kind'],
    percent: number | null,
    block: RegisterWrite,
    now: number,
  ): void {
    inverter.lastWriteAt = now;
    inverter.writeTimes.push(now);
    if (inverter.writeTimes.length > 4000) inverter.writeTimes.shift();
    inverter.writes += 1;
    if (kind === 'refresh') inverter.refreshes += 1;
    this.sink.write({ inverter: inverter.setting.id, at: now, percent, kind, block });
  }
}
