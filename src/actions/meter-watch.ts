import type { AppContext } from '../context.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';

/**
 * `when` conditions on further meters (docs/architecture.md#several-meters): follows the reading
 * and meter events of every meter the conditions name besides `main`, onto a new store when a meter
 * restarts; a meter that goes stale or away breaks its holds.
 */
export class FurtherMeterWatch {
  private readonly followed = new Map<string, { store: ReadingStore; off: () => void }>();
  private wanted = new Set<string>();

  constructor(
    private readonly ctx: AppContext,
    private readonly onReading: (reading: Reading, meter: string) => void,
    private readonly onStale: (meter: string) => void,
  ) {
    ctx.meters.subscribe('actions', 'added', () => this.sync());
    ctx.meters.subscribe('actions', 'removed', (meter) => {
      if (this.wanted.has(meter.id)) this.onStale(meter.id);
      this.sync();
    });
  }

  /** Follows exactly these meters (`main` is the actions output's own subscription). */
  watch(ids: ReadonlySet<string>): void {
    this.wanted = new Set([...ids].filter((id) => id !== 'main'));
    this.sync();
  }

  private sync(): void {
    for (const [id, followed] of this.followed) {
      if (!this.wanted.has(id) || this.ctx.meters.get(id)?.store !== followed.store) {
        followed.off();
        this.followed.delete(id);
      }
    }
    for (const id of this.wanted) {
      const store = this.ctx.meters.get(id)?.store;
      if (!store || this.followed.has(id)) continue;
      const reading = (value: Reading) => this.onReading(value, id);
      const meter = () => {
        if (store.latest === undefined) this.onStale(id);
      };
      store.on('reading', reading);
      store.on('meter', meter);
      this.followed.set(id, {
        store,
        off: () => {
          store.off('reading', reading);
          store.off('meter', meter);
        },
      });
    }
  }
}
