import type { AppConfig } from '../config/types.js';
import type { MeterState, SystemFacts } from './meter-state.js';
import type { Reading } from './reading.js';
import { buildReport } from './report.js';
import type { ReadingStore } from './store.js';

/** What the report is built from (the app context has all of it). */
export interface ReportSource {
  readonly store: ReadingStore;
  readonly config: { readonly config: AppConfig };
  readonly system: SystemFacts;
  now(): number;
}

interface Serialised {
  reading: Reading | undefined;
  meter: MeterState;
  config: AppConfig;
  second: number;
  body: Buffer;
}

/**
 * The report text of GET /api/v1/report, serialised once and shared by every request until
 * something in them changes: a new reading (or the latest going stale), the meter state, the
 * configuration (conv_factor, license), or the wall-clock second (system.date_time and
 * time_since_boot have one-second resolution). The store replaces its `latest` and `meter`
 * objects and the config store its `config` object on every change, so comparing identities is
 * the invalidation; no listener is needed.
 */
export class ReportCache {
  private current: Serialised | undefined;
  /** How many times the report was serialised (tests: once per change, not per request). */
  builds = 0;

  constructor(private readonly ctx: ReportSource) {}

  /** The report as UTF-8 bytes. */
  get(): { body: Buffer } {
    const { store } = this.ctx;
    const now = this.ctx.now();
    const second = Math.floor(now / 1000);
    const reading = store.latestAt(now);
    const meter = store.meterAt(now);
    const config = this.ctx.config.config;
    const cached = this.current;
    if (
      cached &&
      cached.reading === reading &&
      cached.meter === meter &&
      cached.config === config &&
      cached.second === second
    ) {
      return cached;
    }
    const text = JSON.stringify(
      buildReport({
        reading,
        reportId: store.reportId,
        interval: store.interval,
        meter,
        system: this.ctx.system,
        convFactor: config.meter.conv_factor,
        now,
      }),
    );
    const body = Buffer.from(text);
    this.builds += 1;
    this.current = { reading, meter, config, second, body };
    return this.current;
  }
}
