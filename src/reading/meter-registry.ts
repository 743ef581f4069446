import { GuardedEmitter } from '../guarded-emitter.js';
import { MAIN_METER_ID, type MeterRole } from './meter-entries.js';
import type { ReadingStore } from './store.js';

/**
 * One meter as the outputs see it (docs/architecture.md#several-meters): its id, name and role and
 * its own reading store. `source` is the source URI of a polled meter (the primary's or a further
 * one's), `expression` the formula of a virtual meter.
 */
export interface MeterHandle {
  readonly id: string;
  readonly name: string;
  /** The name's message key where the daemon chose the name (docs/architecture.md#server-message-keys). */
  readonly nameKey?: string;
  readonly role: MeterRole;
  readonly kind: 'primary' | 'polled' | 'virtual';
  readonly store: ReadingStore;
  source(): string | undefined;
  readonly expression?: string;
}

export interface RegistryEvents {
  /** A meter joined (or came back with new settings: `removed` for the old handle came first). */
  added: [meter: MeterHandle];
  removed: [meter: MeterHandle];
}

/**
 * Every meter of the daemon by id, the primary (`main`) first. One reading store per meter, so
 * staleness, counters and events work for each exactly as for the primary, and an output serves
 * meter `x` by reading `get(x).store` (docs/architecture.md#several-meters).
 */
export class MeterRegistry extends GuardedEmitter<RegistryEvents> {
  private readonly meters = new Map<string, MeterHandle>();

  constructor(readonly main: MeterHandle) {
    super();
    this.setMaxListeners(0);
    this.meters.set(MAIN_METER_ID, main);
  }

  get(id: string): MeterHandle | undefined {
    return this.meters.get(id);
  }

  /** The meters in order: the primary, then `meters[]` in the order they were added. */
  list(): MeterHandle[] {
    return [...this.meters.values()];
  }

  ids(): string[] {
    return [...this.meters.keys()];
  }

  /** Adds a further meter (its id must be free: a changed meter is removed first). */
  add(meter: MeterHandle): void {
    if (this.meters.has(meter.id)) throw new Error(`meter ${meter.id} is already registered`);
    this.meters.set(meter.id, meter);
    this.deliver('added', meter);
  }

  remove(id: string): MeterHandle | undefined {
    const meter = this.meters.get(id);
    if (!meter || meter === this.main) return undefined;
    this.meters.delete(id);
    this.deliver('removed', meter);
    return meter;
  }

  /**
   * The shape a consumer of every meter's store takes (the /metrics provider): the current meters
   * each time it is iterated.
   */
  *forMetrics(): Iterable<{ id: string; name?: string; role?: string; kind: string; store: ReadingStore }> {
    for (const meter of this.meters.values()) {
      yield { id: meter.id, name: meter.name, role: meter.role, kind: meter.kind, store: meter.store };
    }
  }
}
