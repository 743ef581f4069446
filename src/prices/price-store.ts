import { join } from 'node:path';
import type { Timer } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { PRICE_SOURCE_URLS } from '../config/costs-schema.js';
import { daySlots, quarterAtIn, quartersIn, type SlotView } from './day-series.js';
import { readDayFiles, removeDayFile, writeDayFile } from './day-files.js';
import { computePrices, spotColumns, type CostsSlice, type DayRecord } from './day-record.js';
import { compileFormula, type CompiledFormula } from './formula.js';
import { addDays, localDate, localDayBounds } from './local-day.js';
import type { PriceSignal, QuarterPrice } from '../price-signal.js';
import { nextWake, PublicationTimes } from './fetch-schedule.js';
import { fetchAnswer } from './price-fetch.js';
import {
  parseAnswer,
  sourceRequest,
  type BilledQuarter,
  type SourceName,
  type SourceSettings,
} from './sources.js';

export { PRICE_BODY_LIMIT } from './price-fetch.js';

/**
 * The price store (docs/architecture.md#prices): fetches the day-ahead spot prices of today and
 * tomorrow from the configured source, keeps every local day in a file of the state folder
 * (`<state>/prices/<YYYY-MM-DD>.json`, written atomically: raw spot, source, fetch time and the
 * computed prices per quarter), a year of them in memory, and is the `PriceSignal` every consumer
 * reads. A quarter without a market price is null, never 0.
 *
 * Schedule (on the injected clock): today at start and while it is missing every 15 minutes;
 * tomorrow from 13:00 CET plus a random 0..45 minutes (the auction's results come at about 12:45
 * CET; the spread keeps many gateways from asking at once), every 15 minutes up to 16:00 CET, then
 * hourly. HTTP 429 stops asking for at least 10 minutes (or the Retry-After, when longer).
 * The day files are in day-files.ts, a day's columns and prices in day-record.ts, the series view
 * in day-series.ts, the schedule in fetch-schedule.ts, the request in price-fetch.ts.
 */

export const PRICES_SERVICE = 'prices';
/** Days kept: a year beside the 15-minute history tier, and the day before. */
export const DAYS_KEPT = 367;

export interface PricesStatus {
  state: string;
  source: string;
  status: string;
  last_fetch: string | null;
  next_fetch: string | null;
  requests: number;
  failures: number;
}

/** The status facts of the prices (services.prices): the prices answer's status without its state. */
export type PriceStoreFacts = Omit<PricesStatus, 'state'>;
export type PriceStoreStatus = OutputStatus<PriceStoreFacts>;

/**
 * The day-ahead prices as an output (docs/architecture.md#prices): `disabled` while the source is
 * none; a failed fetch, retried on its own schedule, is trouble (`retrying` with the fetch status)
 * until a fetch succeeds.
 */
export class PriceStore implements PriceSignal, DeclaredOutput<CostsSlice, PriceStoreFacts> {
  readonly name = PRICES_SERVICE;
  readonly watches = ['services.costs'] as const;
  private readonly days = new Map<string, DayRecord>();
  private readonly listeners = new Set<() => void>();
  private slice: CostsSlice | undefined;
  private formula: CompiledFormula | undefined;
  private timer: Timer | undefined;
  private running = false;
  private busy: Promise<void> | undefined;
  /** A tick came while a run was under way: run once more after it. */
  private again = false;
  private blockedUntil = 0;
  private readonly publication: PublicationTimes;
  private status = 'idle';
  private port: StatusPort<PriceStoreFacts> | undefined;
  private lastFetch: number | undefined;
  private nextFetch: number | undefined;
  private requests = 0;
  private failures = 0;
  /** A change of the settings that the current fetch must not miss. */
  private generation = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
    random: () => number = Math.random,
  ) {
    this.publication = new PublicationTimes(random);
  }

  // ---- PriceSignal ----

  quarterAt(time: number): QuarterPrice | undefined {
    return quarterAtIn(this.days, time);
  }

  quarters(from: number, to: number): QuarterPrice[] {
    return quartersIn(this.days, from, to);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- views ----

  /** Every quarter of a local day with its prices; a quarter without one is null. */
  slots(day: string): SlotView[] | undefined {
    return daySlots(this.days, day);
  }

  /** The status shown in /api/v1/system (`services.prices`) and the prices answer. */
  statusView(): PricesStatus {
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    return {
      state: !this.slice || this.slice.source.name === 'none' ? 'disabled' : 'running',
      source: this.slice?.source.name ?? 'none',
      status: this.status,
      last_fetch: iso(this.lastFetch),
      next_fetch: iso(this.nextFetch),
      requests: this.requests,
      failures: this.failures,
    };
  }

  /** Resolves when no fetch is running (tests, and a stop that waits for the last one). */
  async idle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  // ---- Output ----

  select(config: AppConfig): CostsSlice {
    return config.services.costs;
  }

  enabled(slice: CostsSlice): boolean {
    return slice.source.name !== 'none';
  }

  start(status?: StatusPort<PriceStoreFacts>): Promise<void> {
    this.port = status;
    this.running = true;
    this.load();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.clearTimer();
    await this.busy;
    this.port = undefined;
  }

  apply({ slice }: OutputView<CostsSlice>): void {
    const before = this.slice;
    this.slice = slice;
    this.generation += 1;
    this.formula = compileFormula(slice.formula);
    this.recomputeAll();
    if (before && before.source.name !== slice.source.name) this.blockedUntil = 0;
    // New settings are a new start: a failure shows again when their fetch fails.
    this.port?.trouble(undefined);
    this.report();
    this.notify();
    this.clearTimer();
    if (slice.source.name !== 'none' && this.running) void this.tick();
  }

  // ---- schedule ----

  private clearTimer(): void {
    if (this.timer !== undefined) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.nextFetch = undefined;
  }

  private schedule(at: number): void {
    this.clearTimer();
    const delay = Math.max(0, at - this.ctx.now());
    this.nextFetch = at;
    this.timer = this.ctx.clock.setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, delay);
    this.report();
  }

  /**
   * Runs the due fetches, one run at a time. A tick while a run is under way (a settings change
   * mid-request) runs again after it: that run ends without scheduling, as its settings are stale.
   */
  private tick(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return this.busy;
    }
    this.busy = this.fetchDue().finally(() => {
      this.busy = undefined;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    });
    return this.busy;
  }

  private async fetchDue(): Promise<void> {
    const slice = this.slice;
    if (!slice || slice.source.name === 'none' || !this.running) return;
    const generation = this.generation;
    const now = this.ctx.now();
    const today = localDate(now);
    const tomorrow = addDays(today, 1);
    if (now >= this.blockedUntil) {
      if (!this.has(today)) await this.fetchDay(slice, today);
      if (now >= this.publication.of(today) && !this.has(tomorrow) && this.ctx.now() >= this.blockedUntil)
        await this.fetchDay(slice, tomorrow);
    }
    if (!this.running || generation !== this.generation) return;
    this.schedule(nextWake(this.ctx.now(), (day) => this.has(day), this.publication, this.blockedUntil));
  }

  /** Whether `day` is stored from the configured source with a price in every quarter. */
  private has(day: string): boolean {
    const record = this.days.get(day);
    const slice = this.slice;
    if (!record || !slice) return false;
    if (record.source !== slice.source.name || record.zone !== slice.source.zone) return false;
    return record.spot.every((value) => !Number.isNaN(value));
  }

  private sourceSettings(slice: CostsSlice): SourceSettings {
    const name = slice.source.name as SourceName;
    return {
      name,
      zone: slice.source.zone,
      token: slice.source.token,
      currency: slice.source.currency,
      // An empty base URL (a settings POST that left it out) is the source's public address.
      url: slice.source.urls[name] || PRICE_SOURCE_URLS[name],
    };
  }

  /** Fetches one local day from the source and stores it when it has any price. */
  private async fetchDay(slice: CostsSlice, day: string): Promise<void> {
    const bounds = localDayBounds(day)!;
    const source = this.sourceSettings(slice);
    const request = sourceRequest(source, bounds.start, bounds.end, slice.currency);
    const shown = `${source.name} ${day}`;
    this.requests += 1;
    this.lastFetch = this.ctx.now();
    const answer = await fetchAnswer(request);
    if (answer.kind === 'failed') return this.fail(shown, answer.status);
    if (answer.kind === 'rate_limited') {
      this.blockedUntil = this.ctx.now() + answer.waitMs;
      return this.fail(
        shown,
        `rate limited (HTTP 429): no request before ${new Date(this.blockedUntil).toISOString()}`,
      );
    }
    const parsed = await parseAnswer(source, answer.status, answer.body, slice.currency);
    if (parsed.kind === 'not_published') {
      this.status = `not published yet (${day})`;
      this.log.info(`prices ${shown}: not published yet (${parsed.reason})`);
      this.report();
      return;
    }
    if (parsed.kind === 'refused') return this.fail(shown, `refused: ${parsed.reason}`);
    if (parsed.currency !== slice.currency && slice.source.rate <= 0)
      return this.fail(
        shown,
        `refused: prices in ${parsed.currency}, the contract is in ${slice.currency} and no rate is set (services.costs.source.rate)`,
      );
    const { spot, total, found } = spotColumns(parsed.quarters as BilledQuarter[], bounds);
    if (found === 0) {
      this.status = `not published yet (${day})`;
      this.report();
      return;
    }
    this.storeDay(
      {
        day,
        start: bounds.start,
        end: bounds.end,
        source: source.name,
        zone: source.zone,
        currency: parsed.currency,
        fetchedAt: this.ctx.now(),
        spot,
        total,
        imports: new Float64Array(spot.length),
        exports: new Float64Array(spot.length),
      },
      shown,
      found,
    );
  }

  /** A fetched day with `found` priced quarters: computed, written, kept, and told to the readers. */
  private storeDay(record: DayRecord, shown: string, found: number): void {
    const { day } = record;
    const count = record.spot.length;
    computePrices(record, this.slice, this.formula);
    try {
      writeDayFile(this.directory, record);
    } catch (error) {
      this.log.warn(`prices ${shown}: state file not written: ${(error as Error).message}`);
    }
    this.days.set(day, record);
    this.prune();
    this.status =
      found === count ? 'ok' : `ok, ${count - found} of ${count} quarters without a price (${day})`;
    this.log.info(`prices ${shown}: ${found} of ${count} quarters stored`);
    this.port?.trouble(undefined);
    this.report();
    this.notify();
  }

  private fail(shown: string, status: string): void {
    this.failures += 1;
    this.status = status;
    this.log.warn(`prices ${shown}: ${status}`);
    this.port?.trouble(status);
    this.report();
  }

  /** The live facts of the status line (services.prices). */
  private report(): void {
    const { state: _state, ...facts } = this.statusView();
    this.port?.facts(facts);
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.log.warn(`prices: a listener failed: ${(error as Error).message}`);
      }
    }
  }

  // ---- prices after the formula ----

  private recomputeAll(): void {
    for (const record of this.days.values()) {
      const imports = record.imports.slice();
      const exports = record.exports.slice();
      computePrices(record, this.slice, this.formula);
      const same = (a: Float64Array, b: Float64Array) => a.every((value, i) => Object.is(value, b[i]));
      if (same(imports, record.imports) && same(exports, record.exports)) continue;
      try {
        writeDayFile(this.directory, record);
      } catch (error) {
        this.log.warn(`prices ${record.day}: state file not written: ${(error as Error).message}`);
      }
    }
  }

  // ---- state files ----

  private get directory(): string {
    return join(this.ctx.config.config.paths.state, 'prices');
  }

  /**
   * Reads the stored days; a file that does not hold one whole local day of this version is moved
   * aside as `<file>.corrupt-<time>`, logged and counted (docs/architecture.md#durability), and the
   * day is fetched again like a missing one.
   */
  private load(): void {
    readDayFiles(this.directory, {
      oldest: addDays(localDate(this.ctx.now()), -DAYS_KEPT),
      now: () => this.ctx.now(),
      found: (record) => this.days.set(record.day, record),
      expired: (day) => this.remove(day),
      corrupt: (problem) => {
        this.ctx.refusals.add('state_file_corrupt');
        this.log.warn(
          `prices: state file ${problem.path} was corrupt (${problem.reason}); moved to ${problem.movedTo}`,
        );
      },
    });
  }

  private prune(): void {
    const oldest = addDays(localDate(this.ctx.now()), -DAYS_KEPT);
    for (const day of [...this.days.keys()]) if (day < oldest) this.remove(day);
  }

  private remove(day: string): void {
    this.days.delete(day);
    removeDayFile(this.directory, day);
  }
}
