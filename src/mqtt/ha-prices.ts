import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import { addDays, localDate, localDayBounds } from '../prices/local-day.js';
import type { QuarterPrice } from '../price-signal.js';
import type { BrokerLink } from './broker-link.js';
import type { EntityContributor, HaContribution } from './ha-contributors.js';
import type { DiscoveryTopics } from './ha-entities.js';

/**
 * The day-ahead prices on MQTT and in Home Assistant (docs/architecture.md#prices): one retained
 * JSON message per direction, `meter-gateway/<system id>/prices/<import|export>`, with the current
 * quarter's price as `value` and `raw_today` / `raw_tomorrow` as lists of `{start, end, value}`: the
 * attribute shape of the Nord Pool custom integration for Home Assistant (custom-components/nordpool,
 * its sensor's `raw_today` and `raw_tomorrow` attributes), which existing blueprints and "cheapest
 * hours" helpers read. Sent again at every quarter boundary and whenever the series changes; the
 * two sensors are announced while a price source is set.
 */

export type Direction = 'import' | 'export';
const DIRECTIONS: readonly Direction[] = ['import', 'export'];

export function priceTopic(systemId: string, direction: Direction): string {
  return `meter-gateway/${systemId}/prices/${direction}`;
}

interface RawSlot {
  start: string;
  end: string;
  value: number | null;
}

function localIsoOf(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(Math.floor(Math.abs(value))).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${offset < 0 ? '-' : '+'}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}

/** The retained message of one direction at `now`. */
export function priceMessage(ctx: AppContext, direction: Direction, now: number): string {
  const raw = (day: string): RawSlot[] => {
    const bounds = localDayBounds(day)!;
    return ctx.prices.quarters(bounds.start, bounds.end).map((quarter: QuarterPrice) => ({
      start: localIsoOf(quarter.start),
      end: localIsoOf(quarter.end),
      value: quarter[direction],
    }));
  };
  const today = localDate(now);
  return JSON.stringify({
    value: ctx.prices.quarterAt(now)?.[direction] ?? null,
    currency: ctx.config.config.services.costs.currency,
    raw_today: raw(today),
    raw_tomorrow: raw(addDays(today, 1)),
  });
}

const hasSource = (ctx: AppContext) => ctx.config.config.services.costs.source.name !== 'none';

/** The two price sensors on the gateway's device, while a price source is set. */
export function pricesContributor(ctx: AppContext): EntityContributor {
  return (topics: DiscoveryTopics) => {
    if (!hasSource(ctx)) return [];
    const currency = ctx.config.config.services.costs.currency;
    return DIRECTIONS.map((direction): HaContribution => ({
      entity: {
        key: `price_${direction}`,
        name: direction === 'import' ? 'Electricity price' : 'Electricity export price',
        device: 'gateway',
        deviceClass: 'monetary',
        unit: `${currency}/kWh`,
      },
      fields: {
        state_topic: priceTopic(ctx.system.id, direction),
        value_template: '{{ value_json.value }}',
        json_attributes_topic: priceTopic(ctx.system.id, direction),
        json_attributes_template:
          '{{ {"raw_today": value_json.raw_today, "raw_tomorrow": value_json.raw_tomorrow, "currency": value_json.currency} | tojson }}',
        availability_topic: topics.availability,
        payload_available: 'online',
        payload_not_available: 'offline',
      },
    }));
  };
}

/**
 * Publishes the price messages on one link: at connect, at each quarter boundary, on every change.
 * A source set or switched off at runtime has discovery announce or withdraw the two sensors at
 * once (`reannounce`; a withdrawn entity's config is cleared with an empty retained message), not
 * only at the next connect.
 */
export class PricesMqtt {
  private timer: Timer | undefined;
  private readonly unsubscribe: () => void;
  private published = false;
  private hadSource: boolean;

  constructor(
    private readonly ctx: AppContext,
    private readonly link: BrokerLink,
    private readonly reannounce: () => void = () => undefined,
    /** Whether a price source is set, from the MQTT output's slice (docs/architecture.md#output-contract). */
    priceSource: boolean = hasSource(ctx),
  ) {
    this.hadSource = priceSource;
    this.unsubscribe = ctx.prices.onChange(() => this.publish());
  }

  /** The MQTT output's slice says whether a price source is set: the sensors come or go with it. */
  configure(priceSource: boolean): void {
    if (priceSource === this.hadSource) return;
    this.hadSource = priceSource;
    this.publish();
    this.reannounce();
  }

  connected(): void {
    this.publish();
  }

  stop(): void {
    this.unsubscribe();
    if (this.timer !== undefined) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private publish(): void {
    if (this.timer !== undefined) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.ctx.now();
    if (hasSource(this.ctx)) {
      if (this.link.connected) {
        for (const direction of DIRECTIONS)
          this.link.publish(
            {
              topic: priceTopic(this.ctx.system.id, direction),
              payload: priceMessage(this.ctx, direction, now),
              qos: 1,
              retain: true,
            },
            'drop',
          );
        this.published = true;
      }
      const quarter = 15 * 60_000;
      this.timer = this.ctx.clock.setTimeout(() => this.publish(), quarter - (now % quarter));
    } else if (this.published && this.link.connected) {
      // Empty retained payloads remove the messages once the source is switched off.
      for (const direction of DIRECTIONS)
        this.link.publish(
          { topic: priceTopic(this.ctx.system.id, direction), payload: '', qos: 1, retain: true },
          'drop',
        );
      this.published = false;
    }
  }
}
