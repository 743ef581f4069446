import { dateTimes } from '../reading/time-format.js';
import type { HistoryView, PowerView } from '../contracts/history.js';

/**
 * GET /api/v1/history?format=csv: the same points as the JSON answer, one line per bucket (RFC 4180,
 * CRLF line ends, a header line). `time` is the bucket start as ISO 8601 with the local offset, `t`
 * the same instant in Unix seconds; power in kW, energy in kWh; an empty cell is a value the bucket
 * does not have (null in the JSON).
 */
export const HISTORY_CSV_COLUMNS = [
  'time',
  't',
  'readings',
  'p_in_min_kw',
  'p_in_mean_kw',
  'p_in_max_kw',
  'p_out_min_kw',
  'p_out_mean_kw',
  'p_out_max_kw',
  'e_in_kwh',
  'e_out_kwh',
] as const;

function cell(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

function powerCells(power: PowerView | null): string[] {
  return [cell(power?.min), cell(power?.mean), cell(power?.max)];
}

/** With costs on (services.costs.enable), two more columns in the currency: import paid, export received. */
export function costColumns(currency: string): string[] {
  const unit = currency.toLowerCase();
  return [`import_cost_${unit}`, `export_credit_${unit}`];
}

export function historyCsv(view: HistoryView): string {
  const header: string[] = [...HISTORY_CSV_COLUMNS];
  if (view.costs) header.push(...costColumns(view.costs.currency));
  const lines = [header.join(',')];
  for (const point of view.points) {
    const costs = view.costs ? [cell(point.cost?.import), cell(point.cost?.export)] : [];
    lines.push(
      [
        dateTimes(point.t * 1000).date_time,
        String(point.t),
        String(point.n),
        ...powerCells(point.p_in),
        ...powerCells(point.p_out),
        cell(point.e_in),
        cell(point.e_out),
        ...costs,
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The download's file name: resolution and range, e.g. history-15m-2026-11-25T0000-2026-11-26T0000.csv. */
export function historyCsvName(view: HistoryView): string {
  const stamp = (seconds: number) =>
    dateTimes(seconds * 1000)
      .date_time_local.slice(0, 16)
      .replace(':', '');
  return `history-${view.meter !== undefined ? `${view.meter}-` : ''}${view.resolution}-${stamp(view.from)}-${stamp(view.to)}.csv`;
}
