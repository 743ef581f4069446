import type { PRICE_SOURCES } from '../config/costs-schema.js';
import { parseEnergyCharts } from './energy-charts.js';
import { parseEntsoe } from './entsoe.js';
import {
  addSlot,
  MAX_QUARTERS,
  refused,
  sortedQuarters,
  utcTime,
  type SpotAnswer,
  type SpotQuarter,
} from './spot.js';

/**
 * The requests of each day-ahead price source for one local day [from, to) (UTC ms) and the reading
 * of their answers (docs/architecture.md#prices). Each answer shape is the source's public API:
 *
 * - entsoe: Transparency Platform RESTful API, `?securityToken&documentType=A44&in_Domain&out_Domain
 *   &periodStart&periodEnd` (yyyyMMddHHmm, UTC); XML (entsoe.ts).
 * - energy_charts: api.energy-charts.info `GET /price?bzn&start&end` (Unix seconds); JSON
 *   (energy-charts.ts).
 * - nordpool: Nord Pool Data Portal `GET /api/DayAheadPrices?date&market=DayAhead&deliveryArea
 *   &currency`: `multiAreaEntries[]` of `{deliveryStart, deliveryEnd, entryPerArea: {<area>: price}}`
 *   per MWh in `currency`; 204 No Content while the day is not published.
 * - awattar: `GET /v1/marketdata?start&end` (ms): `data[]` of `{start_timestamp, end_timestamp,
 *   marketprice, unit: "Eur/MWh"}`.
 * - energyzero: `GET /v1/energyprices?fromDate&tillDate&interval=4&usageType=1&inclBtw=false`:
 *   `Prices[]` of `{price, readingDate}`, EUR per kWh without VAT, one per hour (interval 4).
 * - tibber: GraphQL `POST` with a bearer token, `viewer.homes[].currentSubscription.priceInfo
 *   (resolution: QUARTER_HOURLY) {today, tomorrow}` of `{total, energy, tax, startsAt, currency}` per
 *   kWh (developer.tibber.com API reference): `energy` is the spot part, `total` what is billed.
 */

export type SourceName = Exclude<(typeof PRICE_SOURCES)[number], 'none'>;

export interface SourceSettings {
  name: SourceName;
  zone: string;
  token: string;
  /** The currency asked for (nordpool); the contract currency when empty. */
  currency: string;
  url: string;
}

export interface SourceRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** A quarter with what the source bills in full (tibber's `total`, per kWh), when it says. */
export interface BilledQuarter extends SpotQuarter {
  total?: number;
}

const compact = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 12);
const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** The local calendar date in Central European time of `ms` (Nord Pool's delivery date). */
function cetDate(ms: number): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Brussels' }).format(new Date(ms));
}

const TIBBER_QUERY =
  '{viewer{homes{currentSubscription{priceInfo(resolution: QUARTER_HOURLY){today{total energy tax startsAt currency} tomorrow{total energy tax startsAt currency}}}}}}';

export function sourceRequest(
  source: SourceSettings,
  from: number,
  to: number,
  contractCurrency: string,
): SourceRequest {
  const get = (url: string, headers: Record<string, string> = {}): SourceRequest => ({
    url,
    method: 'GET',
    headers,
  });
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  switch (source.name) {
    case 'entsoe':
      return get(
        `${source.url}?${q({
          securityToken: source.token,
          documentType: 'A44',
          in_Domain: source.zone,
          out_Domain: source.zone,
          periodStart: compact(from),
          periodEnd: compact(to),
        })}`,
      );
    case 'energy_charts':
      return get(
        join(
          source.url,
          `/price?${q({ bzn: source.zone, start: String(from / 1000), end: String(to / 1000 - 1) })}`,
        ),
      );
    case 'nordpool':
      return get(
        join(
          source.url,
          `/api/DayAheadPrices?${q({
            date: cetDate(from + 12 * 3_600_000),
            market: 'DayAhead',
            deliveryArea: source.zone,
            currency: source.currency || contractCurrency,
          })}`,
        ),
      );
    case 'awattar':
      return get(join(source.url, `/v1/marketdata?${q({ start: String(from), end: String(to) })}`));
    case 'energyzero':
      return get(
        join(
          source.url,
          `/v1/energyprices?${q({
            fromDate: new Date(from).toISOString(),
            tillDate: new Date(to - 1).toISOString(),
            interval: '4',
            usageType: '1',
            inclBtw: 'false',
          })}`,
        ),
      );
    case 'tibber':
      return {
        url: source.url,
        method: 'POST',
        headers: { authorization: `Bearer ${source.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: TIBBER_QUERY }),
      };
  }
}

function json(body: string, who: string): Record<string, unknown> | SpotAnswer {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // below
  }
  return refused(`${who} answer is not a JSON object`);
}
const isAnswer = (value: unknown): value is SpotAnswer =>
  typeof value === 'object' &&
  value !== null &&
  'kind' in value &&
  typeof (value as SpotAnswer).kind === 'string';

/** Slots `{start, end, price}` of one source, each split into quarters. */
function fromSlots(
  who: string,
  currency: string,
  slots: ReadonlyArray<{ start: unknown; end?: unknown; price: unknown; total?: unknown }>,
  minutesDefault: number,
  scale = 1,
): SpotAnswer {
  if (slots.length > MAX_QUARTERS) return refused(`${who} answer with more than ${MAX_QUARTERS} slots`);
  const quarters = new Map<number, number>();
  const totals = new Map<number, number>();
  for (const [i, slot] of slots.entries()) {
    const start = typeof slot.start === 'number' ? slot.start : utcTime(slot.start);
    const end =
      slot.end === undefined ? undefined : typeof slot.end === 'number' ? slot.end : utcTime(slot.end);
    if (start === undefined || !Number.isInteger(start) || start % 900_000 !== 0)
      return refused(`${who} slot ${i}: no quarter-hour start`);
    const minutes = end === undefined ? minutesDefault : (end - start) / 60_000;
    if (minutes !== 15 && minutes !== 30 && minutes !== 60)
      return refused(`${who} slot ${i}: ${minutes} minutes long`);
    if (slot.price === null || slot.price === undefined) continue;
    if (typeof slot.price !== 'number' || !Number.isFinite(slot.price))
      return refused(`${who} slot ${i}: price ${JSON.stringify(slot.price)}`);
    addSlot(quarters, start, minutes, slot.price * scale);
    if (typeof slot.total === 'number' && Number.isFinite(slot.total))
      addSlot(totals, start, minutes, slot.total);
  }
  if (quarters.size === 0) return { kind: 'not_published', reason: `${who} answer without prices` };
  const sorted: BilledQuarter[] = sortedQuarters(quarters);
  for (const quarter of sorted) {
    const total = totals.get(quarter.start);
    if (total !== undefined) quarter.total = total;
  }
  return { kind: 'prices', currency, quarters: sorted };
}

/** ENTSO-E's answer: it answers an acknowledgement with 200 or 400 (no data: reason 999). */
async function entsoeAnswer(status: number, body: string): Promise<SpotAnswer> {
  if (status === 200 || body.includes('Acknowledgement_MarketDocument')) {
    const answer = await parseEntsoe(body);
    if (status === 200 || answer.kind !== 'prices')
      return answer.kind === 'refused' && status !== 200
        ? refused(`HTTP ${status}: ${answer.reason}`)
        : answer;
  }
  return refused(`HTTP ${status}`);
}

function nordPoolAnswer(body: string, source: SourceSettings, contractCurrency: string): SpotAnswer {
  const doc = json(body, 'Nord Pool');
  if (isAnswer(doc)) return doc;
  const currency =
    typeof doc['currency'] === 'string' ? doc['currency'] : source.currency || contractCurrency;
  const entries = doc['multiAreaEntries'];
  if (!Array.isArray(entries)) return refused('Nord Pool answer without multiAreaEntries');
  return fromSlots(
    'Nord Pool',
    currency,
    entries.map((entry: Record<string, unknown> | null) => ({
      start: entry?.['deliveryStart'],
      end: entry?.['deliveryEnd'],
      price: (entry?.['entryPerArea'] as Record<string, unknown> | undefined)?.[source.zone],
    })),
    15,
  );
}

function awattarAnswer(body: string): SpotAnswer {
  const doc = json(body, 'aWATTar');
  if (isAnswer(doc)) return doc;
  const data = doc['data'];
  if (!Array.isArray(data)) return refused('aWATTar answer without data');
  for (const entry of data as Array<Record<string, unknown> | null>)
    if (entry?.['unit'] !== 'Eur/MWh')
      return refused(`aWATTar unit ${JSON.stringify(entry?.['unit'])}, expected "Eur/MWh"`);
  return fromSlots(
    'aWATTar',
    'EUR',
    (data as Array<Record<string, unknown>>).map((entry) => ({
      start: entry['start_timestamp'],
      end: entry['end_timestamp'],
      price: entry['marketprice'],
    })),
    60,
  );
}

function energyZeroAnswer(body: string): SpotAnswer {
  const doc = json(body, 'EnergyZero');
  if (isAnswer(doc)) return doc;
  const prices = doc['Prices'];
  if (!Array.isArray(prices)) return refused('EnergyZero answer without Prices');
  const minutes = doc['intervalType'] === 4 || doc['intervalType'] === undefined ? 60 : 15;
  return fromSlots(
    'EnergyZero',
    'EUR',
    (prices as Array<Record<string, unknown> | null>).map((entry) => ({
      start: entry?.['readingDate'],
      price: entry?.['price'],
    })),
    minutes,
    1000,
  );
}

function tibberAnswer(body: string, contractCurrency: string): SpotAnswer {
  const doc = json(body, 'Tibber');
  if (isAnswer(doc)) return doc;
  if (Array.isArray(doc['errors'])) return refused(`Tibber: ${JSON.stringify(doc['errors']).slice(0, 200)}`);
  const homes = (doc['data'] as { viewer?: { homes?: unknown } } | undefined)?.viewer?.homes;
  const info = Array.isArray(homes)
    ? (homes[0] as { currentSubscription?: { priceInfo?: Record<string, unknown> } } | undefined)
        ?.currentSubscription?.priceInfo
    : undefined;
  if (!info) return refused('Tibber answer without priceInfo');
  const slots = [
    ...(Array.isArray(info['today']) ? info['today'] : []),
    ...(Array.isArray(info['tomorrow']) ? info['tomorrow'] : []),
  ] as Array<Record<string, unknown> | null>;
  const currency =
    typeof slots[0]?.['currency'] === 'string' ? (slots[0]['currency'] as string) : contractCurrency;
  const spaced =
    slots.length > 1
      ? (Date.parse(String(slots[1]?.['startsAt'])) - Date.parse(String(slots[0]?.['startsAt']))) / 60_000
      : 15;
  return fromSlots(
    'Tibber',
    currency,
    slots.map((entry) => ({
      start: entry?.['startsAt'],
      price: entry?.['energy'],
      total: entry?.['total'],
    })),
    spaced === 60 ? 60 : 15,
    1000,
  );
}

/** Reads one source's answer (HTTP status and body); never throws. 429 is the caller's business. */
export async function parseAnswer(
  source: SourceSettings,
  status: number,
  body: string,
  contractCurrency: string,
): Promise<SpotAnswer> {
  if (source.name === 'entsoe') return entsoeAnswer(status, body);
  if (status === 204 || (source.name === 'nordpool' && status === 404))
    return { kind: 'not_published', reason: `HTTP ${status}` };
  if (status < 200 || status > 299) return refused(`HTTP ${status}`);
  switch (source.name) {
    case 'energy_charts':
      return parseEnergyCharts(body);
    case 'nordpool':
      return nordPoolAnswer(body, source, contractCurrency);
    case 'awattar':
      return awattarAnswer(body);
    case 'energyzero':
      return energyZeroAnswer(body);
    case 'tibber':
      return tibberAnswer(body, contractCurrency);
  }
}
