/**
 * What an inverter driver is (docs/architecture.md#export-limiter): the profile names, what the
 * limiter learns at the first contact, and what a driver does. The drivers (sunspec-driver.ts,
 * vendor-drivers.ts) and the profile table (profiles.ts) build on it.
 */
import type { RegisterWrite } from './sunspec.js';

/** The inverter profiles the limiter drives (docs/architecture.md#export-limiter). */
export const INVERTER_PROFILES = ['sunspec', 'fronius', 'sma', 'solaredge', 'huawei', 'victron_ess'] as const;
export type InverterProfileName = (typeof INVERTER_PROFILES)[number];

/** What the limiter learns from an inverter before its first write. */
export interface InverterFacts {
  /** Rated maximum output (W): the setting, else SunSpec model 120 WRtg. */
  wmaxW: number;
  /** A limit already active when the gateway first met the inverter (%), null when none. */
  installerPct: number | null;
  /** The SunSpec control model written: 704 or 123; null for a vendor map. */
  model: 704 | 123 | null;
  /** Present output (W). */
  outputW: number;
  /** `setpoint` devices: the grid setpoint found at the first contact (W), restored on hand-back. */
  setpointW?: number;
}

/** One inverter behind its profile: probe once, then read its output and write its limit. */
export interface InverterDriver {
  /**
   * `limit`: the loop writes a PV output limit (% of WMax). `setpoint`: the device runs its own
   * control loop on its own grid meter and the gateway writes it the grid power to hold (W).
   */
  readonly control: 'limit' | 'setpoint';
  probe(configuredWmaxW: number | undefined): Promise<InverterFacts>;
  readOutput(): Promise<number>;
  /** Writes `percent` of WMax; the inverter falls back to `safePct` (704) or cancels (123) after `revertS` (0: never). */
  writeLimit(percent: number, safePct: number, revertS: number): Promise<RegisterWrite>;
  /** Cancels a limit the gateway set (the enable point cleared). */
  cancel(): Promise<RegisterWrite>;
  /** `setpoint` devices: writes the grid power to hold (W, import positive). */
  writeSetpoint?(watts: number): Promise<RegisterWrite>;
}
