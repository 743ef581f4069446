import type { CostTotalsView, PointView } from '../../history/history-view.js';
import { COST_STRINGS as S } from './strings-costs.js';

/**
 * Showing the money the history API computed (services.costs): totals and per-bar sums. The page
 * never prices energy itself; it only adds up the API's `cost` fields (docs/architecture.md#costs).
 */

export function formatMoney(value: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  } catch {
    return `${value.toFixed(2)} ${currency}`;
  }
}

/** "Import €0.41 · Export credit €0.16 · Standing charge €1.00 · Total €1.25" (capacity when given). */
export function costLine(totals: CostTotalsView): string {
  const money = (value: number) => formatMoney(value, totals.currency);
  const parts = [
    `${S.importCost} ${money(totals.import)}`,
    `${S.exportCredit} ${money(totals.export)}`,
    `${S.standingShare} ${money(totals.standing)}`,
  ];
  if (totals.capacity !== null) parts.push(`${S.capacity} ${money(totals.capacity)}`);
  parts.push(`${S.total} ${money(totals.total)}`);
  return parts.join(' · ');
}

/** Shows the totals in `out` (empty when the API sent none), with the raw numbers as data attributes. */
export function showCostTotals(out: HTMLElement, totals: CostTotalsView | undefined): void {
  out.hidden = totals === undefined;
  out.textContent = totals ? costLine(totals) : '';
  for (const key of ['import', 'export', 'standing', 'capacity', 'total'] as const) {
    if (totals) out.dataset[key] = String(totals[key]);
    else delete out.dataset[key];
  }
  if (totals) out.dataset.currency = totals.currency;
}

/** Net money of the points whose start lies in [from, to) (ms): import paid minus export received. */
export function costOfSlot(points: readonly PointView[], from: number, to: number): number | null {
  let sum: number | null = null;
  for (const point of points) {
    const at = point.t * 1000;
    if (at < from || at >= to || !point.cost) continue;
    const { import: paid, export: received } = point.cost;
    if (paid === null && received === null) continue;
    sum = (sum ?? 0) + (paid ?? 0) - (received ?? 0);
  }
  return sum;
}

/** One bar of the explorer: its slot [from, to) (ms), label and kWh. */
export interface CostBar {
  from: number;
  to: number;
  label: string;
  e_in: number | null;
  e_out: number | null;
}

/** The per-bar table beside the chart: each recorded bar's kWh and its cost (hidden without costs). */
export function showBarCosts(
  details: HTMLDetailsElement,
  bars: readonly CostBar[],
  points: readonly PointView[],
  totals: CostTotalsView | undefined,
): void {
  details.hidden = totals === undefined;
  const body = details.querySelector('tbody')!;
  body.replaceChildren();
  if (!totals) return;
  details.querySelector('summary')!.textContent = S.perSlot;
  details.querySelector('thead tr')!.replaceChildren(
    ...[S.slot, S.energy, `${S.cost} (${totals.currency})`].map((text) => {
      const cell = document.createElement('th');
      cell.textContent = text;
      return cell;
    }),
  );
  for (const bar of bars) {
    const cost = costOfSlot(points, bar.from, bar.to);
    if (cost === null && bar.e_in === null && bar.e_out === null) continue;
    const row = body.insertRow();
    row.dataset.from = String(bar.from / 1000);
    row.insertCell().textContent = bar.label;
    row.insertCell().textContent = `${(bar.e_in ?? 0).toFixed(3)} / ${(bar.e_out ?? 0).toFixed(3)}`;
    const cell = row.insertCell();
    cell.textContent = cost === null ? '—' : formatMoney(cost, totals.currency);
    if (cost !== null) cell.dataset.cost = String(Math.round(cost * 1e6) / 1e6);
  }
}
