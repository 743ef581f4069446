/**
 * services.costs: energy prices and the standing charge (docs/architecture.md#costs), part of the
 * settings tree (GET/PUT /api/v1/settings, METER_GATEWAY_SERVICES_COSTS_* overrides).
 */

/** "HH:MM=price" entries separated by spaces, on quarter hours (the 15-minute history buckets). */
export const TIME_OF_USE_PATTERN = /^\s*(([01]\d|2[0-3]):(00|15|30|45)=-?\d{1,4}(\.\d{1,6})?(\s+|$))*$/;

const PRICE_MODES = ['fixed', 'tariff', 'time_of_use', 'dynamic'] as const;
const FALLBACK_MODES = ['fixed', 'time_of_use'] as const;

/** Day-ahead price sources (docs/architecture.md#prices). */
export const PRICE_SOURCES = [
  'none',
  'entsoe',
  'energy_charts',
  'nordpool',
  'awattar',
  'energyzero',
  'tibber',
] as const;

/** The public address of each source's API; every one a setting (mirrors, proxies, tests). */
export const PRICE_SOURCE_URLS = {
  entsoe: 'https://web-api.tp.entsoe.eu/api',
  energy_charts: 'https://api.energy-charts.info',
  nordpool: 'https://dataportal-api.nordpoolgroup.com',
  awattar: 'https://api.awattar.de',
  energyzero: 'https://api.energyzero.nl',
  tibber: 'https://api.tibber.com/v1-beta/gql',
} as const;

const number = (doc: string, def: number, min: number, max: number) => ({
  doc,
  format: 'bounded-number' as const,
  default: def,
  min,
  max,
});

const url = (source: keyof typeof PRICE_SOURCE_URLS) => ({
  doc: `Base URL of the ${source} API (a mirror, a proxy or a test server may stand in); empty: the public address.`,
  format: 'text' as const,
  default: PRICE_SOURCE_URLS[source] as string,
  maxLength: 256,
  pattern: /^(https?:\/\/\S+)?$/,
  patternText: 'an http:// or https:// URL, or empty',
});

/** Charge zones: "HH:MM=amount" on quarter hours, local time, like the time-of-use table. */
const zones = (doc: string) => ({
  doc,
  format: 'text' as const,
  default: '',
  maxLength: 512,
  pattern: TIME_OF_USE_PATTERN,
  patternText: 'entries "HH:MM=amount" separated by spaces, minutes 00, 15, 30 or 45',
});

const price = (doc: string) => ({
  doc,
  format: 'bounded-number' as const,
  default: 0,
  min: -1000,
  max: 1000,
});

function prices(direction: 'import' | 'export') {
  const what = direction === 'import' ? 'paid per kWh imported' : 'received per kWh exported';
  return {
    mode: {
      doc: `How the ${direction} price is set: fixed (price), tariff (t1/t2 by the meter's tariff register) or time_of_use (table).`,
      format: 'one-of' as const,
      default: 'fixed' as (typeof PRICE_MODES)[number],
      values: PRICE_MODES,
    },
    price: price(`Fixed price ${what} (currency per kWh).`),
    t1: price(`Price ${what} while the meter's tariff register says 1 (mode tariff).`),
    t2: price(`Price ${what} while the meter's tariff register says 2 (mode tariff).`),
    time_of_use: {
      doc: `Time-of-use table (mode time_of_use): "HH:MM=price" entries on quarter hours, local time, e.g. "07:00=0.32 22:00=0.21"; before the first entry the last one applies.`,
      format: 'text' as const,
      default: '',
      maxLength: 512,
      pattern: TIME_OF_USE_PATTERN,
      patternText: 'entries "HH:MM=price" separated by spaces, minutes 00, 15, 30 or 45',
    },
    fallback: {
      doc: `Mode dynamic: how a quarter without a market price is priced (flagged as estimated): fixed (price) or time_of_use (table).`,
      format: 'one-of' as const,
      default: 'fixed' as (typeof FALLBACK_MODES)[number],
      values: FALLBACK_MODES,
    },
  };
}

export const COSTS_SCHEMA = {
  enable: {
    doc: 'Show costs beside kWh (dashboard, history, CSV).',
    format: 'bool' as const,
    default: false,
  },
  currency: {
    doc: 'Currency of the prices (ISO 4217 code).',
    format: 'text' as const,
    default: 'EUR',
    maxLength: 3,
    pattern: /^[A-Z]{3}$/,
    patternText: 'a three-letter currency code such as EUR or CHF',
  },
  import: prices('import'),
  export: prices('export'),
  /**
   * Mode dynamic: the contract formula (docs/architecture.md#prices), applied in this order to the
   * spot price per kWh: import = (spot x a + markup) x (1 + vat) + tax + zone charge,
   * export = spot x b - fee.
   */
  formula: {
    a: number('Factor on the spot price for import (a).', 1, -10, 10),
    markup: number("Supplier's markup per kWh imported, before VAT.", 0, -10, 10),
    vat: number('VAT on spot and markup as a fraction (0.21 for 21 %).', 0, 0, 1),
    tax: number('Energy tax and other charges per kWh imported as billed (VAT included).', 0, -10, 10),
    zones: zones(
      'Time-variable network charge per kWh imported by local time of day, "HH:MM=amount" entries added to tax (like evcc\'s chargesZones).',
    ),
    b: number('Factor on the spot price for export (b).', 1, -10, 10),
    fee: number('Fee per kWh exported, subtracted.', 0, -10, 10),
  },
  /** Mode dynamic: where the day-ahead spot prices come from (docs/architecture.md#prices). */
  source: {
    name: {
      doc: 'Day-ahead price source: none, entsoe (token + EIC), energy_charts (bzn), nordpool (area), awattar (at/de), energyzero (NL), tibber (token).',
      format: 'one-of' as const,
      default: 'none' as (typeof PRICE_SOURCES)[number],
      values: PRICE_SOURCES,
    },
    zone: {
      doc: 'Bidding zone: an EIC code for entsoe (10YBE----------2), a zone for energy_charts (BE, NL, DE-LU), an area for nordpool (NL, NO1), a country for awattar (at, de).',
      format: 'text' as const,
      default: '',
      maxLength: 32,
      pattern: /^[A-Za-z0-9-]*$/,
      patternText: 'letters, digits and hyphens',
    },
    token: {
      doc: 'API token (entsoe security token, tibber access token; write-only).',
      format: 'text' as const,
      default: '',
      maxLength: 128,
      sensitive: true,
      secret: true,
    },
    currency: {
      doc: 'Currency the source is asked for and answers in (nordpool); empty: the contract currency.',
      format: 'text' as const,
      default: '',
      maxLength: 3,
      pattern: /^([A-Z]{3})?$/,
      patternText: 'empty or a three-letter currency code',
    },
    rate: number(
      "Contract currency per unit of the source's currency, when they differ; 0: no rate, such prices are refused.",
      0,
      0,
      100000,
    ),
    own_charges: {
      doc: "tibber: recompute from the spot part (energy) with the formula; off: take tibber's total as the import price.",
      format: 'bool' as const,
      default: false,
    },
    urls: {
      entsoe: url('entsoe'),
      energy_charts: url('energy_charts'),
      nordpool: url('nordpool'),
      awattar: url('awattar'),
      energyzero: url('energyzero'),
      tibber: url('tibber'),
    },
  },
  standing_charge: {
    doc: 'Standing charge per month (currency), spread evenly over the days of each month.',
    format: 'bounded-number' as const,
    default: 0,
    min: 0,
    max: 100000,
  },
};
