import { type Timer } from '../clock.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { QUANTITIES } from '../reading/quantities.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import type { Service } from '../service.js';
import { OpenBuckets } from './open-buckets.js';
import { mergePoints, type HistoryPoint } from './point.js';
import { RegisterDelta } from './register-delta.js';
import { restoreOpenBuckets } from './restore.js';
import { RingFile } from './ring-file.js';
import { COUNTERS_CODEC, hasCounters, type QuarterCounters } from './quarter-counters.js';
import { countersOf, QUARTERS_FILE, readQuarters, type QuarterRecord } from './quarter-records.js';
import { RESOLUTIONS, TIERS, type Resolution } from './tiers.js';

export type { QuarterRecord } from './quarter-records.js';

/**
 * OBIS codes of the quantities the history keeps, by their live keys (docs/architecture.md#live-payload:
 * P_In, P_Out, E_In, E_Out).
 */
function obisOfLive(live: string): string {
  const quantity = QUANTITIES.find((q) => q.live === live);
  if (!quantity) throw new Error(`quantity table has no live key ${live}`);
  return quantity.obis;
}
const OBIS = {
  pIn: obisOfLive('P_In'),
  pOut: obisOfLive('P_Out'),
  eIn: obisOfLive('E_In'),
  eOut: obisOfLive('E_Out'),
};

/** The minute timer fires this long after the boundary, so a reading stamped at :00.000 is in. */
const TICK_DELAY_MS = 50;

/**
 * The history output: import/export power statistics and energy deltas per
 * 1-minute, 15-minute and daily bucket, in three ring files under `<state>/history/` (see
 * ring-file.ts, tiers.ts). Fed by the reading store's `reading` event; a stale meter sends no
 * readings, so it adds no samples. Writes and queries run one at a time in order, so a query sees
 * every closed bucket either in its file or in the list of writes still queued, never both.
 */
export class HistoryRecorder implements Service {
  readonly name = 'history';
  private rings: Record<Resolution, RingFile> | undefined;
  private counterRing: RingFile<QuarterCounters> | undefined;
  /** The registers of the latest reading, for the quarter record of the minute that closes next. */
  private lastCounters: QuarterCounters | undefined;
  private buckets = new OpenBuckets((resolution, point) => this.closed(resolution, point));
  private readonly unwritten: Array<{ resolution: Resolution; point: HistoryPoint }> = [];
  private queue: Promise<unknown> = Promise.resolve();
  private timer: Timer | undefined;
  private readonly imported = new RegisterDelta();
  private readonly exported = new RegisterDelta();
  private meterId: string | undefined;
  private readonly counts = { written: 0, errors: 0, corrupt: 0, rebuilt: 0 };
  private readonly onReading = (reading: Reading) => this.record(reading);

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    /**
     * A further meter's history (docs/architecture.md#several-meters): its store, and its own ring
     * files under `<state>/history/meters/<id>/`; absent: the primary's, as before.
     */
    private readonly meter?: { id: string; store: ReadingStore },
  ) {}

  private get store(): ReadingStore {
    return this.meter?.store ?? this.context.store;
  }

  get directory(): string {
    const base = join(this.context.config.config.paths.state, 'history');
    return this.meter ? join(base, 'meters', this.meter.id) : base;
  }

  async start(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const now = this.context.now();
    const opened: Partial<Record<Resolution, RingFile>> = {};
    try {
      for (const resolution of RESOLUTIONS) {
        const path = join(this.directory, `${resolution}.ring`);
        const { ring, movedAside } = await RingFile.open(path, TIERS[resolution], now);
        if (movedAside) this.logger.warn(`${path} was not a ring file of this tier; moved to ${movedAside}`);
        opened[resolution] = ring;
      }
      const rings = opened as Record<Resolution, RingFile>;
      const quarters = join(this.directory, QUARTERS_FILE);
      const counters = await RingFile.openWith(quarters, TIERS['15m'], now, COUNTERS_CODEC);
      if (counters.movedAside)
        this.logger.warn(`${quarters} was not a quarters ring file; moved to ${counters.movedAside}`);
      this.counterRing = counters.ring;
      const restored = await restoreOpenBuckets(rings, now);
      this.buckets = new OpenBuckets((resolution, point) => this.closed(resolution, point));
      if (restored.open15m) this.buckets.seed('15m', restored.open15m);
      if (restored.open1d) this.buckets.seed('1d', restored.open1d);
      this.rings = rings;
      this.counts.rebuilt = restored.rebuilt;
      this.counts.corrupt = RESOLUTIONS.reduce((sum, r) => sum + restored.counts[r].corrupt, 0);
      const loaded = RESOLUTIONS.map((r) => `${r} ${restored.counts[r].points}`).join(', ');
      this.logger.info(
        `history in ${this.directory}: ${loaded} points, ${this.counts.corrupt} corrupt records ignored, ${restored.rebuilt} buckets rebuilt`,
      );
    } catch (error) {
      await Promise.all(Object.values(opened).map((ring) => ring.close()));
      await this.counterRing?.close();
      this.counterRing = undefined;
      throw error;
    }
    this.store.on('reading', this.onReading);
    this.scheduleTick();
    this.report('running');
  }

  async stop(): Promise<void> {
    this.store.off('reading', this.onReading);
    if (this.timer) this.context.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.rings) return;
    this.buckets.advanceTo(this.context.now());
    // The open minute is stored as a partial record; the next start continues it.
    const minute = this.buckets.takeOpenMinute();
    if (minute) this.closed('1m', minute);
    await this.idle();
    const rings = this.rings;
    this.rings = undefined;
    await Promise.all(RESOLUTIONS.map((resolution) => rings[resolution].close()));
    await this.counterRing?.close();
    this.counterRing = undefined;
    this.report('disabled');
  }

  /** Closes the buckets that ended by `now` (the minute timer; tests call it with their clock). */
  tick(now = this.context.now()): void {
    this.buckets.advanceTo(now);
  }

  /** Resolves when every queued write has finished. */
  async idle(): Promise<void> {
    await this.enqueue(async () => undefined);
  }

  get running(): boolean {
    return this.rings !== undefined;
  }

  /**
   * Points of `resolution` whose bucket overlaps [from, to] (ms), ascending: stored buckets,
   * buckets queued for writing and the open buckets as partial points. Undefined when the store
   * is not running.
   */
  async query(resolution: Resolution, from: number, to: number): Promise<HistoryPoint[] | undefined> {
    return this.enqueue(async () => {
      if (!this.rings) return undefined;
      const tier = TIERS[resolution];
      const inRange = (point: HistoryPoint) => tier.endOf(point.t) > from / 1000 && point.t <= to / 1000;
      const first = tier.numberOf(tier.bucketOf(from));
      const last = tier.numberOf(tier.bucketOf(to));
      const stored = await this.rings[resolution].readRange(first, last);
      const byStart = new Map(stored.map((point) => [point.t, point]));
      const pending = this.unwritten.filter((entry) => entry.resolution === resolution).map((e) => e.point);
      for (const point of [...pending, ...this.buckets.partial(resolution)]) {
        if (!inRange(point)) continue;
        const current = byStart.get(point.t);
        byStart.set(point.t, current ? mergePoints(current, point) : point);
      }
      return [...byStart.values()].filter(inRange).sort((a, b) => a.t - b.t);
    });
  }

  /**
   * Stored quarter hours (docs/architecture.md#push) with registers, starting after `after` up to
   * `until` (Unix s, quarter starts), oldest first, at most `limit`; each with its 15-minute point
   * when that is stored. Only what is on disk: a quarter whose write is still queued comes in a
   * later call. Undefined when the store is not running.
   */
  async quarters(after: number, until: number, limit: number): Promise<QuarterRecord[] | undefined> {
    return this.enqueue(async () => {
      if (!this.rings || !this.counterRing) return undefined;
      return readQuarters(this.counterRing, this.rings['15m'], after, until, limit);
    });
  }

  private record(reading: Reading): void {
    if (!this.rings || this.store.meter.status !== 'OK') return;
    const id = reading.identity.id;
    if (id !== undefined && id !== '') {
      // Another meter: its registers have nothing to do with the previous one's.
      if (this.meterId !== undefined && id !== this.meterId) {
        this.imported.reset();
        this.exported.reset();
        this.lastCounters = undefined;
      }
      this.meterId = id;
    }
    const at = reading.receivedAt;
    const value = (obis: string) => reading.values.get(obis)?.value;
    this.buckets.add(at, {
      pIn: value(OBIS.pIn),
      pOut: value(OBIS.pOut),
      eIn: this.imported.next(value(OBIS.eIn), at),
      eOut: this.exported.next(value(OBIS.eOut), at),
      tariff: reading.tariff,
    });
    // After the add: a minute that this reading closed took the registers of the reading before.
    const counters = countersOf(reading, at);
    this.lastCounters = hasCounters(counters) ? counters : undefined;
  }

  /**
   * A bucket closed: its record is written, and with each minute the registers of its quarter
   * hour as of the minute's last reading, so a SIGKILL loses at most that minute's update and a
   * quarter's record ends with the registers of its last reading (docs/architecture.md#push).
   */
  private closed(resolution: Resolution, point: HistoryPoint): void {
    this.persist(resolution, point);
    const counters = this.lastCounters;
    if (resolution !== '1m' || !counters) return;
    if (counters.at < point.t * 1000 || counters.at >= TIERS['1m'].endOf(point.t) * 1000) return;
    this.persistCounters(counters);
  }

  private persistCounters(counters: QuarterCounters): void {
    void this.enqueue(async () => {
      try {
        if (!this.counterRing) return;
        await this.counterRing.write(counters);
      } catch (error) {
        this.counts.errors += 1;
        this.logger.error(`cannot write the registers of quarter ${counters.t}: ${(error as Error).message}`);
        this.report('error', (error as Error).message);
      }
    });
  }

  private scheduleTick(): void {
    const now = this.context.now();
    const delay = 60_000 - (((now % 60_000) + 60_000) % 60_000) + TICK_DELAY_MS;
    this.timer = this.context.clock.setTimeout(() => {
      this.tick();
      this.scheduleTick();
    }, delay);
    this.timer.unref();
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private persist(resolution: Resolution, point: HistoryPoint): void {
    const entry = { resolution, point };
    this.unwritten.push(entry);
    void this.enqueue(async () => {
      try {
        const { outcome } = await this.rings![resolution].write(point);
        this.counts.written += 1;
        if (outcome === 'kept-newer')
          this.logger.warn(
            `${resolution} bucket ${point.t} not stored: its slot holds a newer bucket (clock set back?)`,
          );
        this.report('running');
      } catch (error) {
        this.counts.errors += 1;
        this.logger.error(`cannot write ${resolution} bucket ${point.t}: ${(error as Error).message}`);
        this.report('error', (error as Error).message);
      } finally {
        this.unwritten.splice(this.unwritten.indexOf(entry), 1);
      }
    });
  }

  private report(state: 'running' | 'error' | 'disabled', error?: string): void {
    this.context.services.set(this.meter ? `history:${this.meter.id}` : 'history', {
      state,
      ...(error === undefined ? {} : { error }),
      // Relative to the state directory: the status is public (/api/v1/system), the box's layout is not.
      directory: 'history',
      written: this.counts.written,
      write_errors: this.counts.errors,
      corrupt_ignored: this.counts.corrupt,
      rebuilt: this.counts.rebuilt,
    });
  }
}
