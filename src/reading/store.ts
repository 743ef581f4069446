import { systemClock, type Clock, type Timer } from '../clock.js';
import { GuardedEmitter } from '../guarded-emitter.js';
import { withDerivedValues } from './derive.js';
import type { MeterDataErrorKind, MeterState, MeterStatus } from './meter-state.js';
import type { MeterIdentity, MeterInterface, MeterProtocol, Reading } from './reading.js';

/** The longest delay a Node.js timer holds: 2^31 - 1 ms (about 24.8 days). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface MeterCounters {
  /** Frames that produced a reading. */
  framesOk: number;
  crcErrors: number;
  parseErrors: number;
  /** Bytes discarded because no frame end came within the maximum frame size. */
  overflows: number;
  encryptionErrors: number;
  /** Polls a polled meter (Modbus) did not answer within its response timeout. */
  timeouts: number;
  /** Every byte received from the transport. */
  bytes: number;
}

export interface StoreEvents {
  /** A valid reading arrived (derived values filled in); outputs refresh from it. */
  reading: [reading: Reading];
  /** The meter status, interface, protocol or identity changed. */
  meter: [meter: MeterState];
  /** Raw bytes exactly as the transport delivered them (meter proxy). */
  raw: [chunk: Buffer];
}

export interface StoreOptions {
  /** No valid frame for this long -> status NO DATA and the reading counts as stale. */
  staleAfterMs: number;
  meterInterface: MeterInterface;
  now?: () => number;
  /** The staleness timer (docs/architecture.md#clock). */
  clock?: Clock;
}

/**
 * The reading store: the one hub between meter input and every output (docs/architecture.md#data-flow). Holds
 * the latest reading, the meter status and the counters; outputs subscribe to its typed events and never talk
 * to transports or parsers. Staleness is explicit (docs/architecture.md#staleness): after `staleAfterMs`
 * without a valid frame the status becomes NO DATA and `latest` is undefined, so no old number is passed off
 * as current.
 */
export class ReadingStore extends GuardedEmitter<StoreEvents> {
  private latestReading: Reading | undefined;
  private lastValidAt: number | undefined;
  private state: MeterState;
  private staleView: { of: MeterState; view: MeterState } | undefined;
  private staleTimer: Timer | undefined;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly staleAfterMs: number;
  /** A bound on the latest reading's currency besides staleAfterMs (see `ingest`). */
  private currentUntil = Number.POSITIVE_INFINITY;
  private reportCounter = 0;
  /** The source failed and is being retried (see setStatus). */
  private retrying = false;
  private measuredInterval: number | undefined;
  readonly counters: MeterCounters = {
    framesOk: 0,
    crcErrors: 0,
    parseErrors: 0,
    overflows: 0,
    encryptionErrors: 0,
    timeouts: 0,
    bytes: 0,
  };

  constructor(options: StoreOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.now = options.now ?? this.clock.now;
    this.staleAfterMs = options.staleAfterMs;
    this.state = { status: 'NOT CONNECTED', interface: options.meterInterface, identity: {} };
    // Outputs come and go; the store must not warn when many SSE clients listen.
    this.setMaxListeners(0);
  }

  /** The latest reading while it is fresh; undefined before the first one and while stale. */
  get latest(): Reading | undefined {
    return this.latestAt(this.now());
  }

  /** The meter state; never OK while the latest reading is stale (the timer's event may still be due). */
  get meter(): MeterState {
    return this.meterAt(this.now());
  }

  /** `latest` as of `now` (a caller reading several views at one instant reads the clock once). */
  latestAt(now: number): Reading | undefined {
    return this.isStaleAt(now) ? undefined : this.latestReading;
  }

  /**
   * `meter` as of `now`. The NO DATA view of a stale OK state is made once per state, so a caller
   * comparing identities (the report cache) sees one object for as long as nothing changes.
   */
  meterAt(now: number): MeterState {
    if (this.state.status !== 'OK' || !this.isStaleAt(now)) return this.state;
    if (this.staleView?.of !== this.state)
      this.staleView = { of: this.state, view: { ...this.state, status: 'NO DATA' } };
    return this.staleView.view;
  }

  /**
   * The last valid reading, fresh or stale (undefined before the first one). Only for outputs that keep
   * counters at their last value while the meter is silent (docs/architecture.md#staleness); everything
   * instantaneous reads `latest`.
   */
  get lastReading(): Reading | undefined {
    return this.latestReading;
  }

  /** Id of the latest report: increments with every reading (report.id). */
  get reportId(): number {
    return this.reportCounter;
  }

  /** Measured seconds between the last two valid readings (report.interval). */
  get interval(): number | undefined {
    return this.measuredInterval;
  }

  isStale(): boolean {
    return this.isStaleAt(this.now());
  }

  private isStaleAt(now: number): boolean {
    return (
      this.lastValidAt === undefined || now - this.lastValidAt > this.staleAfterMs || now > this.currentUntil
    );
  }

  /**
   * When the latest reading stops being current, read at any instant without waiting for the
   * staleness timer (undefined: none is current).
   */
  currentUntilAt(now: number): number | undefined {
    if (this.isStaleAt(now) || this.lastValidAt === undefined) return undefined;
    return Math.min(this.lastValidAt + this.staleAfterMs, this.currentUntil);
  }

  /**
   * Accepts a valid reading from a decoder. `currentUntil`: a time before `staleAfterMs` at which it
   * stops being current as well (a virtual meter's sum: when its first term goes stale).
   */
  ingest(reading: Reading, currentUntil = Number.POSITIVE_INFINITY): void {
    const receivedAt = reading.receivedAt;
    this.currentUntil = currentUntil;
    if (this.lastValidAt !== undefined) {
      this.measuredInterval = Math.round(receivedAt - this.lastValidAt) / 1000;
    }
    this.lastValidAt = receivedAt;
    this.reportCounter += 1;
    this.counters.framesOk += 1;
    this.retrying = false;
    const complete = withDerivedValues(reading);
    this.latestReading = complete;
    this.updateMeter({
      status: 'OK',
      protocol: reading.protocol,
      identity: mergeIdentity(this.state.identity, reading.identity),
    });
    this.armStaleTimer();
    this.deliver('reading', complete);
  }

  /** Counts a rejected frame (the reading, if any, stays as it was). */
  reject(kind: MeterDataErrorKind): void {
    if (kind === 'crc') this.counters.crcErrors += 1;
    else if (kind === 'parse') this.counters.parseErrors += 1;
    else if (kind === 'overflow') this.counters.overflows += 1;
    else if (kind === 'timeout') this.counters.timeouts += 1;
    else this.counters.encryptionErrors += 1;
  }

  /** Raw bytes from the transport: counted and passed on (meter proxy). */
  receiveBytes(chunk: Buffer): void {
    this.counters.bytes += chunk.length;
    this.deliver('raw', chunk);
  }

  /**
   * Status reported by the transport or the detection logic (docs/architecture.md#meter-status).
   * OK is only ever set by a valid reading: a transport saying "open" means NO DATA until then.
   * While a failing source is retried, RECOGNITION is not shown again: the status stays at the
   * failure until an attempt ends differently, so a retry every 60 s does not flap it.
   */
  setStatus(status: MeterStatus): void {
    if (status === 'OK' && this.isStale()) status = 'NO DATA';
    if (status === 'RECOGNITION' && this.retrying) return;
    this.updateMeter({ status });
  }

  /**
   * An attempt of the source failed: it could not be opened or vanished (NOT CONNECTED), the
   * detection found no protocol (NOT RECOGNIZED), or it stayed silent (NO DATA). The source is
   * retried from now on, until a valid reading or new meter settings.
   */
  sourceFailed(status: 'NOT CONNECTED' | 'NOT RECOGNIZED' | 'NO DATA'): void {
    this.retrying = true;
    this.updateMeter({ status });
  }

  /**
   * The latest reading stops being current now, not after `staleAfterMs`: a virtual meter whose
   * term went stale (docs/architecture.md#staleness) must not pass its last sum off as current.
   */
  expire(): void {
    if (this.lastValidAt === undefined) return;
    this.lastValidAt = undefined;
    this.updateMeter({ status: 'NO DATA' });
  }

  /** New meter settings: the next attempt is a first one again (RECOGNITION shows). */
  sourceChanged(): void {
    this.retrying = false;
  }

  setInterface(meterInterface: MeterInterface, protocol?: MeterProtocol): void {
    this.updateMeter(
      protocol === undefined ? { interface: meterInterface } : { interface: meterInterface, protocol },
    );
  }

  /** Stops the staleness timer (daemon shutdown). */
  close(): void {
    if (this.staleTimer) this.clock.clearTimeout(this.staleTimer);
    this.staleTimer = undefined;
  }

  private armStaleTimer(): void {
    if (this.staleTimer) this.staleTimer.refresh();
    else {
      // A longer delay than a Node timer holds would fire at once with a TimeoutOverflowWarning;
      // a capped one that fires early finds the reading fresh and waits again.
      this.staleTimer = this.clock.setTimeout(
        () => this.onStale(),
        Math.min(this.staleAfterMs + 1, LONGEST_TIMER_MS),
      );
    }
  }

  private onStale(): void {
    this.staleTimer = undefined;
    if (!this.isStale()) {
      this.armStaleTimer();
      return;
    }
    if (this.state.status === 'OK') this.updateMeter({ status: 'NO DATA' });
  }

  private updateMeter(change: Partial<MeterState>): void {
    const next: MeterState = { ...this.state, ...change };
    if (
      next.status === this.state.status &&
      next.interface === this.state.interface &&
      next.protocol === this.state.protocol &&
      sameIdentity(next.identity, this.state.identity)
    ) {
      return;
    }
    this.state = next;
    this.deliver('meter', next);
  }
}

function mergeIdentity(previous: MeterIdentity, incoming: MeterIdentity): MeterIdentity {
  const merged: MeterIdentity = { ...previous };
  for (const [key, value] of Object.entries(incoming) as Array<[keyof MeterIdentity, string | undefined]>) {
    if (value !== undefined && value !== '') merged[key] = value;
  }
  return merged;
}

function sameIdentity(a: MeterIdentity, b: MeterIdentity): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof MeterIdentity>;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}
