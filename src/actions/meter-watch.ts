import type { MeterRef } from '../output.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';

/**
 * `when` conditions on further meters (docs/architecture.md#several-meters): follows the reading
 * and meter events of the meters the conditions name besides `main`, as the runner resolved them
 * (docs/architecture.md#output-contract): a meter restarted with new settings comes as a new
 * handle and is followed on its new store; a meter that goes stale or away breaks its holds and is
 * never replaced by another meter's readings.
 */
export class FurtherMeterWatch {
  private readonly followed = new Map<string, { store: ReadingStore; off: () => void }>();

  constructor(
    private readonly onReading: (reading: Reading, meter: string, store: ReadingStore) => void,
    private readonly onStale: (meter: string) => void,
  ) {}

  /** Follows exactly these meters (`main` is the actions output's own subscription). */
  watch(refs: readonly MeterRef[]): void {
    const wanted = new Map(refs.filter((ref) => ref.id !== 'main').map((ref) => [ref.id, ref.handle?.store]));
    for (const [id, followed] of this.followed) {
      if (wanted.get(id) === followed.store) continue;
      followed.off();
      this.followed.delete(id);
      // Its readings stop here: holds on it break (a new store starts them again).
      this.onStale(id);
    }
    for (const [id, store] of wanted) {
      if (!store || this.followed.has(id)) continue;
      const reading = (value: Reading) => this.onReading(value, id, store);
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
