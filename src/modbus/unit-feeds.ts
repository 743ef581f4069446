import type { AppContext } from '../context.js';
import { MAIN_METER_ID } from '../reading/meter-entries.js';
import type { RegisterSpace } from './pdu.js';
import { RegisterFeed, type FeedSettings, type FeedSources } from './register-feed.js';
import type { ModbusSlave } from './slave.js';
import { ANY_UNIT, DEFAULT_UNIT_MAP, isPrimaryOnly } from './unit-map.js';

/**
 * The TCP slave's unit-id map (docs/architecture.md#modbus-unit-map): a register feed per further
 * meter a unit id names, all with the slave's profile; unit ids mapped to `main` read the primary
 * feed. A unit id the map does not name reads the meter of its `*` entry; without one it gets
 * exception 0x0B (gateway target device failed to respond), as does a unit id whose meter is not
 * running. The default map (`{"*": "main"}`) serves the primary at every unit id, as the device
 * does, and keeps the slave on its single-space path.
 */
export class UnitFeeds {
  private readonly feeds = new Map<string, RegisterFeed>();
  private units: Record<string, string> = { ...DEFAULT_UNIT_MAP };
  private settings: FeedSettings | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly slave: ModbusSlave,
    private readonly mainSpace: () => RegisterSpace,
    /** The peak guard and export limiter whose ids the layout may hold. */
    private readonly sources: Omit<FeedSources, 'store'> = {},
  ) {
    ctx.meters.subscribe('modbus', 'added', () => this.sync());
    ctx.meters.subscribe('modbus', 'removed', () => this.sync());
  }

  /** The map and feed settings the slave serves; `undefined` settings: not listening. */
  configure(units: Record<string, string>, settings: FeedSettings | undefined): void {
    this.units = units;
    this.settings = settings;
    for (const feed of this.feeds.values()) feed.stop();
    this.feeds.clear();
    this.sync();
  }

  private sync(): void {
    this.slave.unitSpace = isPrimaryOnly(this.units) ? undefined : (unit) => this.spaceOf(unit);
    const settings = this.settings;
    const wanted = new Set(Object.values(this.units).filter((id) => id !== MAIN_METER_ID));
    for (const [id, feed] of this.feeds) {
      const store = this.ctx.meters.get(id)?.store;
      if (!settings || !wanted.has(id) || !store || feed.store !== store) {
        feed.stop();
        this.feeds.delete(id);
      }
    }
    if (!settings) return;
    for (const id of wanted) {
      const store = this.ctx.meters.get(id)?.store;
      if (!store || this.feeds.has(id)) continue;
      const feed = new RegisterFeed(this.ctx, 'modbus', () => undefined, { ...this.sources, store });
      feed.start(settings);
      this.feeds.set(id, feed);
    }
  }

  private spaceOf(unit: number): RegisterSpace | undefined {
    const id = this.units[String(unit)] ?? this.units[ANY_UNIT];
    if (id === undefined) return undefined;
    if (id === MAIN_METER_ID) return this.mainSpace();
    return this.feeds.get(id)?.space;
  }
}
