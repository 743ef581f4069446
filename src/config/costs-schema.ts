/**
 * services.costs: energy prices and the standing charge (docs/architecture.md#costs), part of the
 * settings tree (GET/PUT /api/v1/settings, METER_GATEWAY_SERVICES_COSTS_* overrides).
 */

/** "HH:MM=price" entries separated by spaces, on quarter hours (the 15-minute history buckets). */
export const TIME_OF_USE_PATTERN = /^\s*(([01]\d|2[0-3]):(00|15|30|45)=-?\d{1,4}(\.\d{1,6})?(\s+|$))*$/;

const PRICE_MODES = ['fixed', 'tariff', 'time_of_use'] as const;

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
  standing_charge: {
    doc: 'Standing charge per month (currency), spread evenly over the days of each month.',
    format: 'bounded-number' as const,
    default: 0,
    min: 0,
    max: 100000,
  },
};
