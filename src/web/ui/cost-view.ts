import type { CostTotalsView, PointView } from '../../contracts/history.js';
import { formatMoney, formatNumber } from './format.js';
import { t } from './i18n/i18n.js';

/**
 * Showing the money the history API computed (services.costs): totals and per-bar sums. The page
 * never prices energy itself; it only adds up the API's `cost` fields (docs/architecture.md#costs).
 */

/** "Import €0.41 · Export credit €0.16 · Standing charge €1.00 · Total €1.25" (capacity when given). */
export function costLine(totals: CostTotalsView): string {
  const money = (value: number) => formatMoney(value, totals.currency);
  const parts = [
    `${t('costs.import')} ${money(totals.import)}`,
    `${t('costs.export_credit')} ${money(totals.export)}`,
    `${t('costs.standing_share')} ${money(totals.standing)}`,
  ];
  if (totals.capacity !== null) parts.push(`${t('costs.capacity')} ${money(totals.capacity)}`);
  parts.push(`${t('costs.total')} ${money(totals.total)}`);
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
  details.querySelector('summary')!.textContent = t('costs.per_bar');
  details.querySelector('thead tr')!.replaceChildren(
    ...[t('history.period'), t('costs.energy'), t('costs.cost', { currency: totals.currency })].map(
      (text) => {
        const cell = document.createElement('th');
        cell.textContent = text;
        return cell;
      },
    ),
  );
  for (const bar of bars) {
    const cost = costOfSlot(points, bar.from, bar.to);
    if (cost === null && bar.e_in === null && bar.e_out === null) continue;
    const row = body.insertRow();
    row.dataset.from = String(bar.from / 1000);
    row.insertCell().textContent = bar.label;
    row.insertCell().textContent = `${formatNumber(bar.e_in ?? 0, 3)} / ${formatNumber(bar.e_out ?? 0, 3)}`;
    const cell = row.insertCell();
    cell.textContent = cost === null ? '—' : formatMoney(cost, totals.currency);
    if (cost !== null) cell.dataset.cost = String(Math.round(cost * 1e6) / 1e6);
  }
}
