import type { Clock } from '../clock.js';
import { parseExpression, type ExpressionTerm } from './meter-expression.js';
import type { MeterRegistry } from './meter-registry.js';
import type { Reading } from './reading.js';
import { ReadingStore } from './store.js';
import { combineReadings } from './virtual-combine.js';

/** The longest term timeout assumed for the virtual store's own staleness (a term expires it sooner). */
const STALE_AFTER_MS = 60_000;

/**
 * A virtual meter (docs/architecture.md#several-meters): its store gets a new reading whenever a
 * term meter gets one and every term is current; the moment any term is stale or not OK, the
 * virtual meter's reading expires (NO DATA), so no sum with an old part is passed off as current.
 */
export class VirtualMeter {
  readonly store: ReadingStore;
  readonly terms: readonly ExpressionTerm[];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    expression: string,
    private readonly registry: MeterRegistry,
    private readonly now: () => number,
    clock?: Clock,
  ) {
    this.terms = parseExpression(expression);
    this.store = new ReadingStore({ staleAfterMs: STALE_AFTER_MS, meterInterface: 'VIRTUAL', now, clock });
  }

  get termIds(): string[] {
    return this.terms.map((term) => term.id);
  }

  start(): void {
    for (const term of this.terms) {
      const store = this.registry.get(term.id)?.store;
      if (!store) throw new Error(`virtual meter term ${term.id} is not a registered meter`);
      const onReading = () => this.update();
      const onMeter = () => this.update();
      store.on('reading', onReading);
      store.on('meter', onMeter);
      this.unsubscribe.push(() => {
        store.off('reading', onReading);
        store.off('meter', onMeter);
      });
    }
    this.update();
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.store.close();
  }

  /** Recomputes from the terms' current readings, or expires when one of them is not current. */
  private update(): void {
    const now = this.now();
    const readings: Array<{ factor: number; reading: Reading }> = [];
    let currentUntil = Number.POSITIVE_INFINITY;
    for (const term of this.terms) {
      const store = this.registry.get(term.id)?.store;
      const reading = store?.latestAt(now);
      const until = store?.currentUntilAt(now);
      if (!store || !reading || until === undefined || store.meterAt(now).status !== 'OK') {
        this.store.expire();
        return;
      }
      currentUntil = Math.min(currentUntil, until);
      readings.push({ factor: term.factor, reading });
    }
    // The sum is current only while every term is: read at any instant, it is NO DATA from the
    // moment its first term goes stale, even before that term's staleness timer has run.
    this.store.ingest(combineReadings(readings, now), currentUntil);
  }
}
