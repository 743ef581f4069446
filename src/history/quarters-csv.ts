import type { QuarterCounters } from './quarter-counters.js';

/**
 * The quarter hours of one meter as the per-quarter CSV of a Belgian distribution system operator
 * (`format=dso_be`, the shape Flemish energy-sharing communities read; docs/architecture.md#push):
 * `;` separated, decimal comma, local time (dd-mm-yyyy and HH:MM:SS), one row per quarter and
 * register. The volume is the register's step from the previous quarter's end to this one's, so a
 * quarter whose previous one is not stored has no row. Belgian meters count day (heures pleines)
 * on tariff 1 (1.8.1, 2.8.1) and night on tariff 2 (1.8.2, 2.8.2); a meter without tariff
 * registers gives `Afname` and `Injectie` from its totals. On the autumn DST day the hour
 * 02:00-03:00 exists twice, so two quarters start at 02:00:00 that day, each with its rows.
 */
export const DSO_BE_HEADER =
  'Van datum;Van tijdstip;Tot datum;Tot tijdstip;EAN;Meter;Metertype;Register;Volume;Eenheid;Validatiestatus';

/** The gateway measured the values; the operator has not validated them. */
const STATUS = 'Gemeten';
const METER_TYPE = 'Digitale Meter';

const REGISTERS: ReadonlyArray<{ name: string; key: keyof QuarterCounters; tariff: boolean }> = [
  { name: 'Afname Dag', key: 'eInT1', tariff: true },
  { name: 'Afname Nacht', key: 'eInT2', tariff: true },
  { name: 'Injectie Dag', key: 'eOutT1', tariff: true },
  { name: 'Injectie Nacht', key: 'eOutT2', tariff: true },
  { name: 'Afname', key: 'eIn', tariff: false },
  { name: 'Injectie', key: 'eOut', tariff: false },
];

const two = (n: number) => String(n).padStart(2, '0');

function localDate(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getDate())}-${two(d.getMonth() + 1)}-${d.getFullYear()}`;
}

function localTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** kWh with 3 decimals (1 Wh, the registers' resolution) and a decimal comma. */
function volume(kwh: number): string {
  return (Math.round(kwh * 1000) / 1000).toFixed(3).replace('.', ',');
}

const hasTariffs = (q: QuarterCounters) => [q.eInT1, q.eInT2, q.eOutT1, q.eOutT2].some((v) => v !== null);

/** CSV cells never carry the separator or a line break. */
const cell = (text: string) => text.replace(/[;\r\n"]/g, ' ');

/**
 * The CSV of `quarters` (ascending, each the registers at its end). `before` is the quarter that
 * precedes the first, when stored: the base of the first quarter's volumes.
 */
export function quartersCsv(quarters: readonly QuarterCounters[], meter: string, ean: string): string {
  const lines = [DSO_BE_HEADER];
  for (let i = 1; i < quarters.length; i++) {
    const previous = quarters[i - 1]!;
    const current = quarters[i]!;
    if (current.t - previous.t !== 900) continue;
    const tariffs = hasTariffs(current);
    const from = current.t * 1000;
    const to = from + 900_000;
    for (const register of REGISTERS) {
      if (register.tariff !== tariffs) continue;
      const end = current[register.key] as number | null;
      const start = previous[register.key] as number | null;
      if (end === null || start === null || end < start) continue;
      lines.push(
        [
          localDate(from),
          localTime(from),
          localDate(to),
          localTime(to),
          cell(ean),
          cell(meter),
          METER_TYPE,
          register.name,
          volume(end - start),
          'kWh',
          STATUS,
        ].join(';'),
      );
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
