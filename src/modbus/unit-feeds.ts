import type { AppContext } from '../context.js';
import type { MeterRef } from '../output.js';
import { MAIN_METER_ID } from '../reading/meter-entries.js';
import type { RegisterSpace } from './pdu.js';
import { RegisterFeed, type FeedSettings, type FeedSources } from './register-feed.js';
import type { ModbusSlave } from './slave.js';
import { ANY_UNIT, isPrimaryOnly } from './unit-map.js';

/** services.modbus.units with each meter id resolved by the runner (docs/architecture.md#output-contract). */
export type UnitRefs = Readonly<Record<string, MeterRef>>;

/**
 * The TCP slave's unit-id map (docs/architecture.md#modbus-unit-map): a register feed per further
 * meter a unit id names, all with the slave's profile; unit ids mapped to `main` read the primary
 * feed. A unit id the map does not name reads the meter of its `*` entry; without one it gets
 * exception 0x0B (gateway target device failed to respond), as does a unit id whose meter is not
 * running. The default map (`{"*": "main"}`) serves the primary at every unit id, as the device
 * does, and keeps the slave on its single-space path.
 *
 * The meters come as refs the runner resolved: a meter that restarts is a new handle, so the
 * output is applied again and `configure` builds its feed on the new store. A meter that does not
 * run has no feed: its unit ids answer 0x0B, never another meter's values.
 */
export class UnitFeeds {
  private readonly feeds = new Map<string, RegisterFeed>();
  private units: UnitRefs = {};

  constructor(
    private readonly ctx: AppContext,
    private readonly slave: ModbusSlave,
    private readonly mainSpace: () => RegisterSpace,
    /** The peak guard and export limiter whose ids the layout may hold. */
    private readonly sources: Omit<FeedSources, 'store'> = {},
  ) {}

  /** The map and feed settings the slave serves; `undefined` settings: not listening. */
  configure(units: UnitRefs, settings: FeedSettings | undefined): void {
    this.units = units;
    for (const feed of this.feeds.values()) feed.stop();
    this.feeds.clear();
    const ids = Object.fromEntries(Object.entries(units).map(([unit, ref]) => [unit, ref.id]));
    this.slave.unitSpace = isPrimaryOnly(ids) ? undefined : (unit) => this.spaceOf(unit);
    if (!settings) return;
    for (const ref of Object.values(units)) {
      const store = ref.handle?.store;
      if (ref.id === MAIN_METER_ID || !store || this.feeds.has(ref.id)) continue;
      const feed = new RegisterFeed(this.ctx, 'modbus', () => undefined, { ...this.sources, store });
      feed.start(settings);
      this.feeds.set(ref.id, feed);
    }
  }

  private spaceOf(unit: number): RegisterSpace | undefined {
    const ref = this.units[String(unit)] ?? this.units[ANY_UNIT];
    if (ref === undefined) return undefined;
    if (ref.id === MAIN_METER_ID) return this.mainSpace();
    return this.feeds.get(ref.id)?.space;
  }
}
