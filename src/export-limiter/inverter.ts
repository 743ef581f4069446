import type { AppContext } from '../context.js';
import type { InverterSetting } from './config-formats.js';
import type { InverterStatus } from './limiter-status.js';
import { createLink, parseInverterSource, type RegisterLink } from './modbus-link.js';
import { createDriver, type InverterDriver, type InverterFacts } from './profiles.js';

/**
 * One inverter of the export limiter (docs/architecture.md#export-limiter) as the loop holds it:
 * its link and profile driver, the facts found at the first contact, what the gateway commands,
 * the write and failure counters, and its line of the status.
 */

const HOUR_MS = 3_600_000;

export class Inverter {
  readonly link: RegisterLink;
  readonly driver: InverterDriver;
  facts: InverterFacts | undefined;
  state: InverterStatus['state'] = 'unknown';
  reportedW: number | null = null;
  reportedAt = 0;
  /** The limit the gateway holds (%), null while the gateway holds none. */
  commandedPct: number | null = null;
  /** `setpoint` devices: the grid setpoint the gateway holds (W), null while it holds none. */
  commandedW: number | null = null;
  lastWriteAt: number | null = null;
  readonly writeTimes: number[] = [];
  writes = 0;
  refreshes = 0;
  failures = 0;
  consecutiveFailures = 0;
  retryAt = 0;
  error: string | null = null;
  /** The last write failed: the inverter answers reads but not writes, so it is not under control. */
  writeFailing = false;
  /** safe_pct went out during the current stale spell. */
  safeWritten = false;

  constructor(
    readonly setting: InverterSetting,
    ctx: AppContext,
  ) {
    this.link = createLink(parseInverterSource(setting.source)!, ctx.clock);
    this.driver = createDriver(this.link, setting.profile);
  }

  /** A device that holds a grid setpoint itself (victron_ess) rather than taking a PV limit. */
  get holdsSetpoint(): boolean {
    return this.driver.control === 'setpoint';
  }

  /** The highest limit the gateway may command (%): the installer's, else 100. */
  get capPct(): number {
    return this.facts?.installerPct ?? 100;
  }

  status(now: number): InverterStatus {
    while (this.writeTimes.length > 0 && this.writeTimes[0]! <= now - HOUR_MS) this.writeTimes.shift();
    const wmax = this.facts?.wmaxW ?? null;
    return {
      id: this.setting.id,
      profile: this.setting.profile,
      state: this.state,
      model: this.facts?.model ?? null,
      wmax_w: wmax,
      installer_limit_pct: this.facts?.installerPct ?? null,
      reported_w: this.reportedW,
      commanded_pct: this.commandedPct,
      commanded_w:
        this.driver.control === 'setpoint'
          ? this.commandedW
          : this.commandedPct === null || wmax === null
            ? null
            : Math.round((this.commandedPct * wmax) / 100),
      last_write: this.lastWriteAt === null ? null : new Date(this.lastWriteAt).toISOString(),
      writes_per_hour: this.writeTimes.length,
      writes: this.writes,
      refreshes: this.refreshes,
      failures: this.failures,
      error: this.error,
    };
  }
}
