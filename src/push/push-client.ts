import { mkdirSync } from 'node:fs';
import { Backoff } from '../backoff.js';
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../log.js';
import type { BoundedAnswer } from '../outgoing.js';
import type { PriceSignal } from '../price-signal.js';
import type { Refusals } from '../refusals.js';
import {
  BatchSize,
  collectMinutes,
  collectQuarters,
  GRACE_MS,
  lastCompleteQuarter,
  liveSamples,
  minuteSpan,
  QUARTER_S,
  quarterBatchSamples,
  type LivePower,
  type LivePowerSample,
  type QuarterSource,
} from './batches.js';
import {
  emptyCounts,
  openCursorFile,
  type CursorFile,
  type PushState,
  type PushStatus,
} from './cursor-file.js';
import { encodeBatch } from './encoders.js';
import { LiveBuffer } from './live-buffer.js';
import { Receiver, reasonOf, skewOf } from './receiver.js';
import type { PushSample, TargetLabels } from './series.js';
import {
  DEFAULT_BATCH_QUARTERS,
  DEFAULT_RETENTION_DAYS,
  type PushSecrets,
  type PushTargetSettings,
  type PushWhat,
} from './settings.js';

export { GRACE_MS } from './batches.js';
export { LIVE_BUFFER } from './live-buffer.js';
export type { LivePower, LivePowerSample, QuarterSource } from './batches.js';
export type { PushStatus } from './cursor-file.js';

/**
 * One push target (docs/architecture.md#push): the history is the queue. A persisted cursor names
 * the last quarter hour the receiver acknowledged; each batch is the next quarters after it (every
 * meter's records of up to `batch_quarters` quarter starts), oldest first, and the cursor moves
 * (one atomic file write) only after a 2xx answer. A SIGKILL at any moment therefore loses nothing
 * and re-sends at most the batch in flight, which a receiver stores once per (series, timestamp).
 * This file holds the pump, the batch sequence and what each answer does; what a batch holds is in
 * batches.ts, the cursor file in cursor-file.ts, the requests in receiver.ts, the live power in
 * live-buffer.ts.
 */

/** Minutes per batch of what: "minutes" (a day). */
const MINUTE_BATCH = 1440;
/** How often the live power goes out while nothing else is due. */
/** Samples within this much of the retention edge are counted too old: they would cross it in flight. */
const RETENTION_MARGIN_MS = 3_600_000;
export const LIVE_PERIOD_MS = 10_000;
/** Retries after 429, 5xx or no answer: 1 s doubling to 5 minutes, drawn from [50 %, 100 %] of that. */
export const RETRY_CAP_MS = 300_000;
const RETRY_JITTER = 0.5;
/** Clock check: skew against the receiver's Date header beyond this is `clock_unsynced`. */
export const MAX_SKEW_MS = 300_000;
/** How long one clock check is trusted before the next batch probes again. */
const CLOCK_CHECK_MS = 3_600_000;

export interface PushClientOptions {
  settings: PushTargetSettings;
  secrets: PushSecrets[string] | undefined;
  source: QuarterSource;
  /** Folder of the cursor files (`<state>/push`). */
  directory: string;
  gateway: string;
  clock: Clock;
  now: () => number;
  logger: Logger;
  /** Counts a cursor file moved aside as `state_file_corrupt`. */
  refusals: Refusals;
  prices?: PriceSignal;
  /** The meter whose quarters carry the peak guard's quarter value, read per batch (none: undefined). */
  peakMeter?: () => string | undefined;
  /** The readings' live power, for what: "power_1s". */
  live?: LivePower;
  /** Called after the state changed (the push output's service state follows its targets). */
  onState?: () => void;
  /** Random source of the retry jitter (tests pass a fixed one). */
  random?: () => number;
  /** Bound of one request (default 30 s). */
  requestTimeoutMs?: number;
}

export type BatchOutcome = 'sent' | 'shrunk' | 'empty' | 'retry' | 'held' | 'unsynced' | 'stopped';

export class PushClient {
  private state: PushState = 'starting';
  private cursor = 0;
  private minuteCursor = 0;
  private counts = emptyCounts();
  private lastError: string | null = null;
  private lastSuccess: number | null = null;
  private skew: number | null = null;
  private checkedAt: number | undefined;
  /** Quarters per batch, halved by a 413. */
  private readonly quarterBatch: BatchSize;
  /** Minutes per batch of what: "minutes", halved by a 413 like the quarters. */
  private readonly minuteBatch = new BatchSize(MINUTE_BATCH, 'minutes');
  private readonly backoff: Backoff;
  private timer: Timer | undefined;
  private running = false;
  private pumping: Promise<void> | undefined;
  /** power_1s samples not yet acknowledged. */
  private readonly live: LiveBuffer;
  private unsubscribeLive: (() => void) | undefined;
  private readonly file: CursorFile;
  private readonly receiver: Receiver;
  /** The target's fixed labels, one object for the client's life (the series' labels are cached by it). */
  private readonly labels: TargetLabels;

  constructor(private readonly options: PushClientOptions) {
    this.labels = {
      site: options.settings.site ?? '',
      gateway: options.gateway,
      extra: options.settings.extra_labels ?? {},
    };
    this.live = new LiveBuffer(options.settings.id, options.logger);
    this.receiver = new Receiver(options.settings, options.secrets, options.requestTimeoutMs);
    this.quarterBatch = new BatchSize(options.settings.batch_quarters ?? DEFAULT_BATCH_QUARTERS, 'quarters');
    this.backoff = new Backoff(1000, RETRY_CAP_MS, RETRY_JITTER, options.random);
    this.file = openCursorFile(
      options.directory,
      options.settings.id,
      options.now,
      options.refusals,
      options.logger,
    );
  }

  private enter(state: PushState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.();
  }

  get id(): string {
    return this.options.settings.id;
  }

  /** Loads the cursor; a target without one starts at the retention edge (what the receiver keeps). */
  load(): void {
    mkdirSync(this.options.directory, { recursive: true });
    const stored = this.file.load();
    if (stored) {
      this.cursor = stored.cursor;
      this.minuteCursor = stored.minutes_cursor ?? 0;
      this.counts = { ...stored.counts };
      return;
    }
    const edge = this.oldestSendable(this.options.now());
    this.cursor = Math.floor(edge / 1000 / QUARTER_S) * QUARTER_S;
    this.persist();
  }

  private wants(what: PushWhat): boolean {
    return (this.options.settings.what ?? ['quarters']).includes(what);
  }

  /**
   * The oldest time a sample may have to be sent at `now`: the receiver's retention edge plus
   * RETENTION_MARGIN_MS (a sample nearer the edge would cross it in flight).
   */
  private oldestSendable(now: number): number {
    const retentionMs = (this.options.settings.retention_days ?? DEFAULT_RETENTION_DAYS) * 86_400_000;
    return now - retentionMs + RETENTION_MARGIN_MS;
  }

  private persist(): void {
    this.file.save({
      version: 1,
      cursor: this.cursor,
      ...(this.minuteCursor > 0 ? { minutes_cursor: this.minuteCursor } : {}),
      counts: this.counts,
    });
  }

  /** Starts the pump: a batch now, then after each success at once, after each failure by the backoff. */
  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.wants('power_1s') && this.options.live)
      this.unsubscribeLive = this.options.live.subscribe((sample) => this.addLive(sample));
    this.schedule(0);
  }

  /** Takes one live power sample; past LIVE_BUFFER the oldest goes (power_1s is best effort). */
  addLive(sample: LivePowerSample): void {
    this.live.add(sample);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribeLive?.();
    this.unsubscribeLive = undefined;
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.pumping;
    this.enter('stopped');
  }

  /** Sends batches until the backlog is empty or one fails (tests and the bench drive it directly). */
  async drain(): Promise<BatchOutcome> {
    for (;;) {
      const outcome = await this.sendBatch();
      if (outcome !== 'sent' && outcome !== 'shrunk') return outcome;
    }
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.pumping = this.pump();
    }, delayMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    let outcome: BatchOutcome;
    try {
      outcome = await this.drain();
    } catch (error) {
      // A fault of this code or the disk (the cursor write): logged, retried like a failed batch.
      this.fail(`push failed: ${(error as Error).message}`);
      outcome = 'retry';
    }
    if (!this.running) return;
    if (outcome === 'empty') {
      // The next quarter is complete GRACE_MS after its end; the live power goes more often.
      const now = this.options.now();
      const next = (Math.floor(now / 1000 / QUARTER_S) + 1) * QUARTER_S * 1000 + GRACE_MS;
      const wait = Math.max(1000, next - now);
      this.schedule(this.wants('power_1s') ? Math.min(wait, LIVE_PERIOD_MS) : wait);
    } else if (outcome === 'unsynced') this.schedule(60_000);
    else if (outcome === 'held') this.schedule(RETRY_CAP_MS);
    else this.schedule(this.backoff.next());
  }

  status(): PushStatus {
    const until = lastCompleteQuarter(this.options.now());
    return {
      id: this.id,
      kind: this.options.settings.kind,
      state: this.state,
      cursor: this.cursor,
      // A target that pushes no quarters has no quarter backlog: its quarter cursor never moves.
      backlog_quarters: this.wants('quarters') ? Math.max(0, (until - this.cursor) / QUARTER_S) : 0,
      last_error: this.lastError,
      last_success: this.lastSuccess,
      clock_skew_ms: this.skew,
      counts: { ...this.counts },
    };
  }

  /** One batch: collect, guard, encode, send, and move the cursor on an acknowledgement. */
  async sendBatch(): Promise<BatchOutcome> {
    const now = this.options.now();
    if (
      this.checkedAt === undefined ||
      now - this.checkedAt > CLOCK_CHECK_MS ||
      this.state === 'clock_unsynced'
    ) {
      const checked = await this.checkClock();
      if (checked !== 'sent') return checked;
    }
    const batch = this.wants('quarters')
      ? await collectQuarters(
          this.options.source,
          this.cursor,
          lastCompleteQuarter(now),
          this.quarterBatch.size,
        )
      : undefined;
    if (batch && 'missing' in batch) return this.waitForHistory(batch.missing);
    if (!batch) {
      // The quarters are up to date: then the minutes, if the target wants them.
      let outcome = this.wants('minutes') ? await this.sendMinuteBatch(now) : 'empty';
      if (outcome === 'empty' && this.wants('power_1s')) outcome = await this.sendLiveBatch(now);
      if (outcome === 'empty') this.enter('idle');
      return outcome;
    }
    const oldest = this.oldestSendable(now);
    const { samples, tooOld } = quarterBatchSamples(
      batch.records,
      this.labels,
      this.options.prices,
      this.options.peakMeter?.(),
      oldest,
    );
    if (tooOld > 0) {
      this.counts.dropped_too_old += tooOld;
      this.options.logger.warn(
        `push ${this.id}: ${tooOld} samples older than the receiver's retention (${this.options.settings.retention_days ?? DEFAULT_RETENTION_DAYS} days) not sent`,
      );
    }
    if (samples.length === 0) {
      this.acknowledge(batch.last, 0);
      return 'sent';
    }
    return this.deliver(
      samples,
      now,
      `quarter ${batch.last}`,
      (sent) => this.acknowledge(batch.last, sent),
      () => this.quarterBatch.shrink(),
    );
  }

  /**
   * Sends one batch and acts on the answer; `acknowledge` moves the batch's cursor (with the
   * samples the receiver took, 0 for a refused batch that is skipped). After a 413 `shrink` halves
   * the size of that kind of batch and names it (undefined: it is one unit already) and the same
   * data goes again in smaller batches ('shrunk').
   */
  private async deliver(
    samples: PushSample[],
    now: number,
    upTo: string,
    acknowledge: (sent: number) => void,
    shrink: () => string | undefined,
  ): Promise<BatchOutcome> {
    this.enter('sending');
    const encoded = await encodeBatch(this.options.settings.kind, samples);
    let answer: BoundedAnswer;
    try {
      answer = await this.receiver.request('POST', encoded.body, encoded.headers);
    } catch (error) {
      return this.retry(`no answer: ${(error as Error).message}`);
    }
    this.noteDate(answer, now);
    const status = answer.statusCode;
    if (status >= 200 && status < 300) {
      acknowledge(samples.length);
      return 'sent';
    }
    const reason = `HTTP ${status}${reasonOf(answer)}`;
    if (status === 429 || status >= 500 || (status >= 300 && status < 400) || status === 408)
      // A redirect is not followed (another host must not get the data or the token): retried, so a
      // receiver that moved back is served without loss.
      return this.retry(reason);
    if (status === 413) {
      const smaller = shrink();
      if (smaller !== undefined) {
        this.options.logger.warn(`push ${this.id}: ${reason}; batches now ${smaller}`);
        return 'shrunk';
      }
    }
    if (status === 401 || status === 403 || status === 404) {
      // The target's settings (token, URL) are wrong: hold the backlog until they are fixed.
      this.enter('error');
      this.lastError = reason;
      this.options.logger.error(
        `push ${this.id}: ${reason}; the backlog is kept, retried every ${RETRY_CAP_MS / 1000} s`,
      );
      return 'held';
    }
    this.counts.dropped_rejected += samples.length;
    this.options.logger.error(
      `push ${this.id}: batch up to ${upTo} refused (${reason}); ${samples.length} samples not sent`,
    );
    this.lastError = reason;
    acknowledge(0);
    return 'sent';
  }

  /**
   * The next batch of minutes (what: "minutes", docs/guide/fleet-push.md): every meter's closed
   * minutes of the history's 1-minute tier after the minute cursor, at most a day, as mean powers
   * stamped at each minute's end. The tier holds 48 h, so a cursor further back starts there.
   */
  private async sendMinuteBatch(now: number): Promise<BatchOutcome> {
    const source = this.options.source;
    if (!source.minutes) return 'empty';
    const retentionEdge = this.oldestSendable(now);
    const span = minuteSpan(now, this.minuteCursor, retentionEdge, this.minuteBatch.size);
    if (!span) return 'empty';
    const last = span.last;
    const collected = await collectMinutes(source, span, this.labels, retentionEdge);
    if ('missing' in collected) return this.waitForHistory(collected.missing);
    const { samples, tooOld } = collected;
    if (tooOld > 0) {
      this.counts.dropped_too_old += tooOld;
      this.options.logger.warn(
        `push ${this.id}: ${tooOld} minute samples older than the receiver's retention not sent`,
      );
    }
    if (samples.length === 0) {
      this.acknowledgeMinutes(last, 0);
      return 'sent';
    }
    return this.deliver(
      samples,
      now,
      `minute ${last}`,
      (sent) => this.acknowledgeMinutes(last, sent),
      () => this.minuteBatch.shrink(),
    );
  }

  /**
   * The live power held (power_1s) as `meter_active_power_watts` at each reading's time, the
   * /metrics series. Taken out of the buffer for the request and put back in front when it is to be
   * retried; the counters move in memory (no cursor: nothing of it is durable).
   */
  private async sendLiveBatch(now: number): Promise<BatchOutcome> {
    if (this.live.length === 0) return 'empty';
    const batch = this.live.take();
    const samples = liveSamples(batch, this.labels);
    const outcome = await this.deliver(
      samples,
      now,
      'live power',
      (sent) => {
        if (sent > 0) {
          this.counts.sent += sent;
          this.counts.batches += 1;
          this.lastSuccess = this.options.now();
        }
        this.backoff.reset();
        this.enter('idle');
      },
      () => this.live.shrink(),
    );
    if (outcome === 'retry' || outcome === 'held' || outcome === 'shrunk') {
      this.live.putBack(batch);
      // Held or retried live power waits for the next turn; the quarters stay first.
    }
    return outcome;
  }

  private acknowledgeMinutes(last: number, sent: number): void {
    this.minuteCursor = last;
    this.acknowledge(this.cursor, sent);
  }

  private acknowledge(last: number, sent: number): void {
    this.cursor = last;
    if (sent > 0) {
      this.counts.sent += sent;
      this.counts.batches += 1;
      this.lastSuccess = this.options.now();
    }
    this.persist();
    this.backoff.reset();
    this.enter('idle');
  }

  /**
   * A listed meter's history is not open: nothing moves, tried again by the backoff (not counted
   * as a receiver's retry); the status names the meter (docs/architecture.md#push).
   */
  private waitForHistory(meter: string): BatchOutcome {
    this.fail(`the history of meter ${meter} is not open`);
    return 'retry';
  }

  private retry(reason: string): BatchOutcome {
    this.counts.retried += 1;
    this.fail(reason);
    return 'retry';
  }

  private fail(reason: string): void {
    this.enter('backoff');
    if (this.lastError !== reason) this.options.logger.warn(`push ${this.id}: ${reason}; retrying`);
    this.lastError = reason;
  }

  /**
   * Compares the clock with the receiver's Date header (RFC 9110 §6.6.1), from a GET of the target
   * URL that writes nothing: a receiver drops samples stamped far ahead of its own time, so a
   * gateway whose clock is off sends nothing (`clock_unsynced`) until the clock agrees.
   */
  private async checkClock(): Promise<BatchOutcome> {
    const now = this.options.now();
    let answer: BoundedAnswer;
    try {
      answer = await this.receiver.request('GET', undefined, {});
    } catch (error) {
      return this.retry(`no answer to the clock check: ${(error as Error).message}`);
    }
    return this.noteDate(answer, now) ? 'sent' : 'unsynced';
  }

  private noteDate(answer: BoundedAnswer, sentAt: number): boolean {
    const skew = skewOf(answer, sentAt, this.options.now());
    if (skew === undefined) {
      // No Date header: nothing to compare with; the receiver's own checks apply.
      this.checkedAt = sentAt;
      return true;
    }
    this.skew = skew;
    if (Math.abs(skew) > MAX_SKEW_MS) {
      if (this.state !== 'clock_unsynced')
        this.options.logger.error(
          `push ${this.id}: the clock is ${Math.round(skew / 1000)} s off the receiver's; nothing is pushed until it agrees`,
        );
      this.enter('clock_unsynced');
      this.lastError = `clock off by ${Math.round(skew / 1000)} s`;
      this.checkedAt = undefined;
      return false;
    }
    if (this.state === 'clock_unsynced') this.enter('idle');
    this.checkedAt = sentAt;
    return true;
  }
}
