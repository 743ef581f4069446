import type { PriceSlot, PricesView } from '../contracts/prices.js';
import { bucketPrice, type PriceSettings } from '../history/costs.js';
import { localIso } from '../reading/time-format.js';
import type { AppConfig } from '../config/types.js';
import { describeFormula } from './formula.js';
import { addDays, localDate } from './local-day.js';
import type { SlotView } from './day-series.js';
import type { PriceStore } from './price-store.js';

type CostsSlice = AppConfig['services']['costs'];

/** `today`, `tomorrow` or a date as the local date, or undefined when it is neither. */
export function dayOf(text: string, now: number): string | undefined {
  if (text === 'today') return localDate(now);
  if (text === 'tomorrow') return addDays(localDate(now), 1);
  return /^\d{4}-\d\d-\d\d$/.test(text) ? text : undefined;
}

/** The fallback price of a quarter without a market price (docs/architecture.md#costs), or null. */
function fallback(prices: PriceSettings, start: number): number | null {
  if (prices.mode !== 'dynamic') return null;
  const point = { t: start / 1000, n: 1, eIn: 0, eOut: 0 };
  return bucketPrice({ ...prices, mode: prices.fallback ?? 'fixed' }, point, point.t + 900);
}

function slotView(slot: SlotView, costs: CostsSlice): PriceSlot {
  const missing = slot.spot === null;
  const imported = missing ? fallback(costs.import, slot.start) : slot.import;
  const exported = missing ? fallback(costs.export, slot.start) : slot.export;
  return {
    start: localIso(slot.start),
    end: localIso(slot.end),
    spot: slot.spot,
    import: imported,
    export: exported,
    source: slot.source,
    estimated: missing && (imported !== null || exported !== null),
  };
}

/** GET /api/v1/prices for one local day; undefined for a date that does not exist. */
export function pricesView(
  store: PriceStore,
  costs: CostsSlice,
  day: string,
  now: number,
): PricesView | undefined {
  const slots = store.slots(day);
  if (!slots) return undefined;
  const views = slots.map((slot) => slotView(slot, costs));
  const today = store.slots(localDate(now)) ?? [];
  const currentIndex = today.findIndex((slot) => slot.start <= now && now < slot.end);
  const at = (index: number) => {
    const slot =
      today[index] ?? (index === today.length ? store.slots(addDays(localDate(now), 1))?.[0] : undefined);
    return slot ? slotView(slot, costs) : null;
  };
  const priced = slots.filter((slot) => slot.import !== null).map((slot) => slot.import!);
  const current = today[currentIndex];
  const todays = today.filter((slot) => slot.import !== null).map((slot) => slot.import!);
  const rank =
    current && current.import !== null ? todays.filter((price) => price < current.import!).length + 1 : null;
  const status = store.statusView();
  return {
    day,
    currency: costs.currency,
    source: status.source,
    status: status.status,
    quarters: slots.length,
    slots: views,
    current: currentIndex < 0 ? null : at(currentIndex),
    next: currentIndex < 0 ? null : at(currentIndex + 1),
    min: priced.length === 0 ? null : Math.min(...priced),
    max: priced.length === 0 ? null : Math.max(...priced),
    mean:
      priced.length === 0
        ? null
        : Math.round((priced.reduce((a, b) => a + b, 0) / priced.length) * 1e6) / 1e6,
    rank,
    formula: describeFormula(costs.formula),
  };
}
