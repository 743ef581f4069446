/**
 * The vendor inverter drivers of the export limiter (docs/architecture.md#export-limiter): SolarEdge
 * (Enhanced Dynamic Power Control), Huawei SUN2000 (power-limited grid connection) and Victron ESS
 * (grid setpoint), on the register maps of src/export-limiter/vendors.ts.
 */
import { LinkError, type RegisterLink } from './modbus-link.js';
import type { InverterDriver, InverterFacts } from './inverter-driver.js';
import type { RegisterWrite } from './sunspec.js';
import { sunspecModels, sunspecOutput } from './sunspec-driver.js';
import {
  float32LowFirst,
  HUAWEI,
  int16Word,
  int32HighFirst,
  int32LowFirst,
  readFloat32LowFirst,
  SOLAREDGE,
  uint32HighFirst,
  uint32LowFirst,
  VICTRON,
  wordInt16,
} from './vendors.js';

/** A percentage read from a device, kept only when it is one (0..100). */
function percentOrNull(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value >= 0 && value <= 100 ? value : null;
}

/** Rounds to 0.1 (the resolution every profile writes). */
function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * SolarEdge (src/export-limiter/vendors.ts, Enhanced Dynamic Power Control). Output from the SunSpec
 * model 101/103 SolarEdge serves at 40000; rating from 0xF304 MaxActivePower. Advanced power control
 * (0xF142) is the installer's switch: when it is off the probe fails with that reason and nothing is
 * written. The command timeout (0xF310 = revert_s) and the fallback limit (0xF312 = safe_pct) are
 * written once, before the first limit (again only when those settings change), then
 * EnableDynamicPowerControl 1, then each limit is one FC16 of 0xF322 DynamicActivePowerLimit.
 * Handing back clears EnableDynamicPowerControl, so no timeout falls back to safe_pct afterwards.
 */
export class SolarEdgeDriver implements InverterDriver {
  readonly control = 'limit';
  private output: number | undefined;
  /** The timeout and fallback written, and whether EDPC was enabled, since the probe. */
  private written: { timeoutS: number; fallbackPct: number } | undefined;
  private enabled = false;

  constructor(private readonly link: RegisterLink) {}

  async probe(configuredWmaxW: number | undefined): Promise<InverterFacts> {
    const apc = await this.link.read(SOLAREDGE.ADVANCED_PWR_CONTROL_EN, 2);
    if (int32LowFirst(apc[0], apc[1]) !== 1)
      throw new LinkError(
        'not_enabled',
        'advanced power control is off (0xF142 AdvancedPwrControlEn 0): the installer must enable it; nothing written',
      );
    const edpc = await this.link.read(SOLAREDGE.ENABLE_DPC, 20);
    const dynamic = await this.link.read(SOLAREDGE.DYNAMIC_LIMIT, 2);
    this.enabled = edpc[0] === 1;
    const installerPct = this.enabled ? percentOrNull(readFloat32LowFirst(dynamic[0], dynamic[1])) : null;
    const rating = readFloat32LowFirst(edpc[4], edpc[5]);
    const wmaxW = configuredWmaxW ?? (rating !== null && rating > 0 ? rating : undefined);
    if (wmaxW === undefined)
      throw new LinkError('invalid', 'no rated power: set wmax_w (0xF304 MaxActivePower is 0)');
    const models = await sunspecModels(this.link);
    this.output = models.get(103) ?? models.get(102) ?? models.get(101);
    if (this.output === undefined)
      throw new LinkError('invalid', 'no SunSpec inverter model (101, 102 or 103)');
    this.written = undefined;
    return {
      wmaxW,
      installerPct: installerPct !== null && installerPct < 100 ? tenth(installerPct) : null,
      model: null,
      outputW: await this.readOutput(),
    };
  }

  readOutput(): Promise<number> {
    if (this.output === undefined) return Promise.reject(new LinkError('invalid', 'inverter not probed'));
    return sunspecOutput(this.link, this.output);
  }

  async writeLimit(percent: number, safePct: number, revertS: number): Promise<RegisterWrite> {
    // Revert 0 (a stop, a stale meter, a restore): the timeout already written stays (the
    // inverter's default 60 s before any), and its fallback is the limit being written, so the
    // timeout running out changes nothing.
    const timeoutS = revertS > 0 ? revertS : (this.written?.timeoutS ?? 60);
    if (this.written?.timeoutS !== timeoutS || this.written.fallbackPct !== safePct) {
      await this.link.write(SOLAREDGE.COMMAND_TIMEOUT, [
        ...uint32LowFirst(timeoutS),
        ...float32LowFirst(clampPct(safePct)),
      ]);
      this.written = { timeoutS, fallbackPct: safePct };
    }
    if (!this.enabled) {
      await this.link.write(SOLAREDGE.ENABLE_DPC, [1]);
      this.enabled = true;
    }
    const block = { address: SOLAREDGE.DYNAMIC_LIMIT, words: float32LowFirst(clampPct(percent)) };
    await this.link.write(block.address, block.words);
    return block;
  }

  /** EnableDynamicPowerControl 0: the dynamic limit and its timeout no longer apply. */
  async cancel(): Promise<RegisterWrite> {
    const block = { address: SOLAREDGE.ENABLE_DPC, words: [0] };
    await this.link.write(block.address, block.words);
    this.enabled = false;
    return block;
  }
}

/**
 * Huawei SUN2000 (src/export-limiter/vendors.ts): output from 32080, rating from 30075 Pmax. The
 * limit is "power-limited grid connection (%)": 47415 = 7 written once, then each limit is 47418 in
 * 0.1 % (gain 10). These are the inverter's feed-in settings: with a Huawei power meter at the grid
 * connection point the inverter applies them there itself, so the profile is for an inverter without
 * one (the gateway's meter closes the loop). Huawei documents no command timeout for them: after a
 * kill the last limit stays (zero export holds; price curtailment stays until the gateway is back).
 * A mode found at the first contact is the installer's: 7 (its %), 6 (its W as % of Pmax), 5 (0 %);
 * 1 (DI active scheduling, a ripple-control receiver) is refused: nothing written.
 */
export class HuaweiDriver implements InverterDriver {
  readonly control = 'limit';
  private mode: number | undefined;

  constructor(private readonly link: RegisterLink) {}

  async probe(configuredWmaxW: number | undefined): Promise<InverterFacts> {
    const rating = await this.link.read(HUAWEI.RATED_POWER, 4);
    const pmax = uint32HighFirst(rating[2], rating[3]);
    const wmaxW = configuredWmaxW ?? (pmax !== null && pmax > 0 && pmax < 0xffffffff ? pmax : undefined);
    if (wmaxW === undefined) throw new LinkError('invalid', 'no rated power: set wmax_w (30075 Pmax unset)');
    const control = await this.link.read(HUAWEI.CONTROL_MODE, 4);
    const mode = control[0];
    if (mode === HUAWEI.MODE_DI)
      throw new LinkError(
        'not_enabled',
        "active power control mode is DI active scheduling (47415 = 1): the installer's; nothing written",
      );
    let installerPct: number | null = null;
    if (mode === HUAWEI.MODE_PERCENT) installerPct = percentOrNull((wordInt16(control[3]) ?? -1) / 10);
    else if (mode === HUAWEI.MODE_WATT) {
      const watts = int32HighFirst(control[1], control[2]);
      installerPct = watts === null ? null : percentOrNull(tenth((watts / wmaxW) * 100));
    } else if (mode === HUAWEI.MODE_ZERO) installerPct = 0;
    this.mode = mode;
    return { wmaxW, installerPct, model: null, outputW: await this.readOutput() };
  }

  async readOutput(): Promise<number> {
    const words = await this.link.read(HUAWEI.ACTIVE_POWER, 2);
    const watts = int32HighFirst(words[0], words[1]);
    if (watts === null || watts === 0x7fffffff) throw new LinkError('invalid', '32080 active power absent');
    return watts;
  }

  async writeLimit(percent: number): Promise<RegisterWrite> {
    if (this.mode !== HUAWEI.MODE_PERCENT) {
      await this.link.write(HUAWEI.CONTROL_MODE, [HUAWEI.MODE_PERCENT]);
      this.mode = HUAWEI.MODE_PERCENT;
    }
    const block = { address: HUAWEI.FEED_GRID_PCT, words: [Math.round(clampPct(percent) * 10)] };
    await this.link.write(block.address, block.words);
    return block;
  }

  async cancel(): Promise<RegisterWrite> {
    const block = { address: HUAWEI.CONTROL_MODE, words: [HUAWEI.MODE_UNLIMITED] };
    await this.link.write(block.address, block.words);
    this.mode = HUAWEI.MODE_UNLIMITED;
    return block;
  }
}

/**
 * Victron ESS (src/export-limiter/vendors.ts): the GX holds the grid power at its ESS grid setpoint
 * (2700, W) on its own grid meter, so the gateway writes the setpoint (= target_w) instead of a PV
 * limit, again every refresh_s; output is the system's PV power (808..813 AC-coupled, 850
 * DC-coupled). The setpoint found at the first contact is restored when the gateway hands the site
 * back. WMax: wmax_w when set (shown only), else 0.
 */
export class VictronEssDriver implements InverterDriver {
  readonly control = 'setpoint';

  constructor(private readonly link: RegisterLink) {}

  async probe(configuredWmaxW: number | undefined): Promise<InverterFacts> {
    const [setpoint] = await this.link.read(VICTRON.GRID_SETPOINT, 1);
    const found = wordInt16(setpoint);
    if (found === null) throw new LinkError('invalid', '2700 grid setpoint absent');
    return {
      wmaxW: configuredWmaxW ?? 0,
      installerPct: null,
      model: null,
      outputW: await this.readOutput(),
      setpointW: found,
    };
  }

  async readOutput(): Promise<number> {
    const ac = await this.link.read(VICTRON.PV_AC_OUT, 6);
    const [dc] = await this.link.read(VICTRON.PV_DC, 1);
    // 0xFFFF: not available (no such PV on this system).
    return [...ac, dc ?? 0xffff].reduce((sum, word) => sum + (word === 0xffff ? 0 : word), 0);
  }

  writeLimit(): Promise<RegisterWrite> {
    return Promise.reject(new LinkError('invalid', 'victron_ess takes a grid setpoint, not a PV limit'));
  }

  cancel(): Promise<RegisterWrite> {
    return Promise.reject(new LinkError('invalid', 'victron_ess takes a grid setpoint, not a PV limit'));
  }

  async writeSetpoint(watts: number): Promise<RegisterWrite> {
    const block = { address: VICTRON.GRID_SETPOINT, words: [int16Word(watts)] };
    await this.link.write(block.address, block.words);
    return block;
  }
}

function clampPct(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}
