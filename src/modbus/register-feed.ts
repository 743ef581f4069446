import { type Timer } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import { RegisterImage } from './encoder.js';
import { DEFAULT_LAYOUT, type CompactLayout } from './layout.js';
import { describeIssues, validateLayout } from './layout-validate.js';
import type { RegisterSpace } from './pdu.js';
import { METER_PROFILES, type ProfileName } from '../modbus-protocol/profiles/catalogue.js';
import {
  gridValues,
  type GridValues,
  type PowerDirection,
  type SlaveLine,
} from '../modbus-protocol/profiles/grid-values.js';
import type { ValueSource } from './register-ids.js';
import type { ReadingStore } from '../reading/store.js';
import { BlockSpace, inputImageSpace } from './register-space.js';
import { PEAK_REGISTER_PREFIX, peakSnapshotOnce } from './peak-registers.js';
import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter } from '../export-limiter/limiter.js';
import { LIMITER_REGISTER_PREFIX, limiterStatusOnce } from './limiter-registers.js';

/** What a feed serves besides the config: the meter's store and the peak guard of `peak.*` ids. */
export interface FeedSources {
  /** The meter whose readings it serves; the primary's store when absent (docs/architecture.md#several-meters). */
  store?: ReadingStore;
  /** The running guard whose values `peak.*` ids serve (none: they read NaN / 0). */
  peak?: PeakGuard;
  /** The export limiter whose values `limiter.*` ids serve (none: they read NaN / 0). */
  limiter?: ExportLimiter;
}

/**
 * The layout the whatwatt profile serves: the stored custom one, or the device's default when none is set.
 */
export function effectiveLayout(config: AppConfig): { layout: CompactLayout; problem?: string } {
  if (config.modbus.layout === null) return { layout: DEFAULT_LAYOUT };
  const result = validateLayout(config.modbus.layout);
  if (result.ok) return { layout: result.layout };
  return { layout: DEFAULT_LAYOUT, problem: describeIssues(result.issues) };
}

/** The settings of one slave that decide what it serves. */
export interface FeedSettings {
  profile: ProfileName;
  direction: PowerDirection;
  /** RTU: the serial line and unit id the set-up registers mirror; TCP: undefined. */
  line?: SlaveLine;
}

/**
 * Keeps one slave's registers current while the slave serves: rebuilt synchronously in the reading
 * store's 'reading' and 'meter' events (so a request after a telegram is ingested reads that telegram's values), the
 * whatwatt layout's system-clock registers once a second. `space` is what the slave reads.
 */
export class RegisterFeed {
  /** The whatwatt layout image (input registers 0..9998). */
  readonly image = new RegisterImage();
  private readonly imageSpace = inputImageSpace(this.image.bytes);
  private profileSpace: BlockSpace<GridValues> | undefined;
  private settings: FeedSettings = { profile: 'whatwatt', direction: 'import_positive' };
  /** The values of the last profile rebuild: their counters stay while the reading is stale. */
  private previous: GridValues | undefined;
  private clock: Timer | undefined;
  private running = false;
  private readonly rebuildNow = (): void => this.rebuild();
  /** The peak guard followed (its `update` events) while the layout holds `peak.*` ids. */
  private peakFollowed: PeakGuard | undefined;
  /** The export limiter followed (its `status` events) while the layout holds `limiter.*` ids. */
  private limiterFollowed: ExportLimiter | undefined;

  constructor(
    private readonly ctx: AppContext,
    /** Owner name for the store's listener accounting ('modbus', 'modbus_rtu'). */
    private readonly owner: string,
    /** Called after the profile changed, with the new space. */
    private readonly onSpace: (space: RegisterSpace) => void,
    sources: FeedSources = {},
  ) {
    this.store = sources.store ?? ctx.store;
    this.peak = sources.peak;
    this.limiter = sources.limiter;
  }

  private readonly peak: PeakGuard | undefined;
  private readonly limiter: ExportLimiter | undefined;

  readonly store: ReadingStore;

  get space(): RegisterSpace {
    return this.profileSpace ?? this.imageSpace;
  }

  get profile(): ProfileName {
    return this.settings.profile;
  }

  /** Starts following the store (the slave is listening); a second start only reconfigures. */
  start(settings: FeedSettings): void {
    if (!this.running) {
      this.running = true;
      this.store.subscribe(this.owner, 'reading', this.rebuildNow);
      this.store.subscribe(this.owner, 'meter', this.rebuildNow);
    }
    this.configure(settings);
  }

  /** Stops following the store: a slave that does not listen costs nothing per reading. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.store.off('reading', this.rebuildNow);
    this.store.off('meter', this.rebuildNow);
    this.stopClock();
    this.followPeak(false);
    this.followLimiter(false);
  }

  /** New settings: installed at once while running, else with the next start. */
  configure(settings: FeedSettings): void {
    this.settings = settings;
    if (!this.running) return;
    this.stopClock();
    if (settings.profile === 'whatwatt') {
      this.profileSpace = undefined;
      const { layout, problem } = effectiveLayout(this.ctx.config.config);
      if (problem)
        this.ctx.logger.error(`stored Modbus layout is invalid (${problem}); serving the default layout`);
      this.image.setLayout(layout);
      const holds = (prefix: string) =>
        layout.some((set) => set.registers.some((r) => r.id.startsWith(prefix)));
      this.followPeak(holds(PEAK_REGISTER_PREFIX));
      this.followLimiter(holds(LIMITER_REGISTER_PREFIX));
    } else {
      this.profileSpace = new BlockSpace(METER_PROFILES[settings.profile]);
      this.followPeak(false);
      this.followLimiter(false);
    }
    this.rebuild();
    if (settings.profile === 'whatwatt' && this.image.hasClock) this.scheduleClock();
    this.onSpace(this.space);
  }

  rebuild(): void {
    if (!this.running) return;
    if (this.profileSpace === undefined) {
      this.image.rebuild(this.valueSource());
      return;
    }
    const { system, config } = this.ctx;
    const store = this.store;
    const values = gridValues({
      reading: store.latest,
      identity: store.meter.identity,
      system,
      direction: this.settings.direction,
      line: this.settings.line,
      nominalFrequency: config.config.modbus.nominal_frequency,
      ...(this.previous ? { previous: this.previous } : {}),
    });
    this.previous = values;
    this.profileSpace.rebuild(values);
  }

  private valueSource(): ValueSource {
    const { system, config } = this.ctx;
    const store = this.store;
    return {
      reading: store.latest,
      identity: store.meter.identity,
      system,
      convFactor: config.config.meter.conv_factor,
      now: this.ctx.now(),
      peak: peakSnapshotOnce(this.peak),
      limiter: limiterStatusOnce(this.limiter),
    };
  }

  /**
   * The limiter changes its values on its own steps (its readings, its inverters, its 1 s tick):
   * a layout with `limiter.*` ids is rebuilt on each status it publishes.
   */
  private followLimiter(on: boolean): void {
    const limiter = on ? this.limiter : undefined;
    if (limiter === this.limiterFollowed) return;
    this.limiterFollowed?.off('status', this.rebuildNow);
    this.limiterFollowed = limiter;
    limiter?.on('status', this.rebuildNow);
  }

  /**
   * The guard changes its values on its own readings and on its clock (window ends, staleness):
   * a layout with `peak.*` ids is rebuilt on each of its updates (docs/architecture.md#peak-guard-outputs).
   */
  private followPeak(on: boolean): void {
    const guard = on ? this.peak : undefined;
    if (guard === this.peakFollowed) return;
    this.peakFollowed?.off('update', this.rebuildNow);
    this.peakFollowed = guard;
    guard?.on('update', this.rebuildNow);
  }

  /** sys.timestamp / sys.date_time: rewritten just after each full second. */
  private scheduleClock(): void {
    this.clock = this.ctx.clock.setTimeout(
      () => {
        this.image.refreshClock(this.valueSource());
        this.scheduleClock();
      },
      1005 - (this.ctx.now() % 1000),
    );
    this.clock.unref();
  }

  private stopClock(): void {
    if (this.clock) this.ctx.clock.clearTimeout(this.clock);
    this.clock = undefined;
  }
}
