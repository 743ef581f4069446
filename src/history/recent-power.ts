import type { AppContext } from '../context.js';
import { QUANTITIES } from '../reading/quantities.js';
import type { Reading } from '../reading/reading.js';
import type { Service } from '../service.js';
import { RECENT_CAPACITY, RECENT_KEYS } from '../contracts/values.js';
import type { RecentPoint, RecentView } from '../contracts/history.js';

/** The live keys the buffer keeps: total and per-phase import and export power. */
const KEYS = RECENT_KEYS;
type PowerKey = (typeof KEYS)[number];

const OBIS_OF: ReadonlyArray<[key: PowerKey, obis: string]> = KEYS.map((key) => {
  const quantity = QUANTITIES.find((q) => q.live === key);
  if (!quantity) throw new Error(`quantity table has no live key ${key}`);
  return [key, quantity.obis];
});

/** How far back the buffer reaches: the dashboard's rolling chart shows five minutes. */
export const RECENT_SECONDS = 300;
export { RECENT_CAPACITY };

/**
 * A small in-memory buffer of the power of the latest readings (at most RECENT_SECONDS back and
 * RECENT_CAPACITY entries), fed by the store's `reading` event, so a page that opens the dashboard
 * can draw the last minutes at once instead of waiting for the live stream to fill its chart.
 * Finer than the 1-minute history, and gone with the process.
 */
export class RecentPower implements Service {
  readonly name = 'recent-power';
  private readonly points: RecentPoint[] = [];
  private readonly onReading = (reading: Reading) => this.add(reading);

  constructor(private readonly context: AppContext) {}

  async start(): Promise<void> {
    this.context.store.on('reading', this.onReading);
  }

  async stop(): Promise<void> {
    this.context.store.off('reading', this.onReading);
    this.points.length = 0;
  }

  add(reading: Reading): void {
    const point: RecentPoint = { t: reading.receivedAt / 1000 };
    for (const [key, obis] of OBIS_OF) {
      const value = reading.values.get(obis)?.value;
      if (typeof value === 'number') point[key] = value;
    }
    this.points.push(point);
    if (this.points.length > RECENT_CAPACITY) this.points.splice(0, this.points.length - RECENT_CAPACITY);
  }

  /** The readings of the last RECENT_SECONDS before `now` (ms), ascending. */
  view(now = this.context.now()): RecentView {
    const since = now / 1000 - RECENT_SECONDS;
    const first = this.points.findIndex((point) => point.t >= since);
    if (first > 0) this.points.splice(0, first);
    else if (first < 0) this.points.length = 0;
    return { seconds: RECENT_SECONDS, points: [...this.points] };
  }
}
