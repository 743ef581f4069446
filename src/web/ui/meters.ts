import type { HistoryView } from '../../contracts/history.js';
import type { MeterListEntry } from '../../contracts/meters.js';
import { api } from './api.js';
import { formatNumber } from './format.js';
import { t, tOr, tServer } from './i18n/i18n.js';

/**
 * The Meters page (docs/architecture.md#several-meters): every meter with its power, status and
 * today's energy (its history since local midnight), and an energy-flow card (grid, PV, battery,
 * EV, house) when the meters' roles allow it. Refreshed every 2 s while the page is shown.
 */

type MeterRow = Pick<
  MeterListEntry,
  'id' | 'name' | 'name_key' | 'role' | 'kind' | 'status' | 'power_in' | 'power_out'
>;

const REFRESH_MS = 2000;
let timer: number | undefined;

function net(row: MeterRow): number | null {
  if (row.status !== 'OK' || row.power_in === null) return null;
  return row.power_in - (row.power_out ?? 0);
}

function cell(text: string, className?: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/** kW or kWh with three decimals in the page's locale; a dash for no value. */
function kw(value: number | null): string {
  return formatNumber(value, 3);
}

/** A role's display name (grid, pv, …); a role this page does not know shows as it is. */
export function roleName(role: string): string {
  return tOr(`meters.role_${role}`, role);
}

/** kWh in and out since local midnight, from the meter's daily history bucket. */
async function today(id: string): Promise<[number | null, number | null]> {
  const now = new Date();
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() / 1000;
  const to = Math.ceil(Date.now() / 1000);
  try {
    const day = await api<HistoryView>(
      'GET',
      `/api/v1/history?meter=${encodeURIComponent(id)}&resolution=1d&from=${from}&to=${to}`,
    );
    const sum = (key: 'e_in' | 'e_out') =>
      day.points.reduce<number | null>(
        (total, point) => (point[key] === null ? total : (total ?? 0) + point[key]!),
        null,
      );
    return [sum('e_in'), sum('e_out')];
  } catch {
    return [null, null];
  }
}

async function renderTable(rows: readonly MeterRow[]): Promise<void> {
  const body = document.querySelector<HTMLTableSectionElement>('#meters-table tbody');
  if (!body) return;
  const days = await Promise.all(rows.map((row) => today(row.id)));
  body.replaceChildren(
    ...rows.map((row, k) => {
      const tr = document.createElement('tr');
      tr.dataset.meter = row.id;
      // The primary's default name is the daemon's: shown in the page's language by its key.
      const own = tServer(row.name, row.name_key);
      const name = row.kind === 'virtual' ? t('meters.virtual_name', { name: own }) : own;
      const [dayIn, dayOut] = days[k]!;
      tr.append(
        cell(name),
        cell(roleName(row.role)),
        cell(row.status, row.status === 'OK' ? 'ok' : 'warn'),
        cell(kw(net(row)), 'power'),
        cell(kw(dayIn)),
        cell(kw(dayOut)),
      );
      return tr;
    }),
  );
}

/** Net power of every meter of a role (import − export), or null when none is current. */
function roleNet(rows: readonly MeterRow[], role: string): number | null {
  const values = rows.filter((row) => row.role === role && row.kind !== 'virtual').map(net);
  if (values.length === 0 || values.some((value) => value === null)) return null;
  return values.reduce<number>((sum, value) => sum + value!, 0);
}

/**
 * The flows in kW, each as the power going into the house side: grid import (main), PV production
 * (a PV meter's export), battery discharge (its export), the EV's draw; the house is the balance.
 */
export function energyFlow(rows: readonly MeterRow[]): Record<string, number | null> | undefined {
  const main = rows.find((row) => row.id === 'main');
  if (!main || !rows.some((row) => ['pv', 'battery', 'ev'].includes(row.role) && row.id !== 'main'))
    return undefined;
  const grid = net(main);
  const pv = roleNet(rows, 'pv');
  const battery = roleNet(rows, 'battery');
  const ev = roleNet(rows, 'ev');
  const flows: Record<string, number | null> = { grid };
  if (pv !== null || rows.some((row) => row.role === 'pv')) flows.pv = pv === null ? null : -pv;
  if (battery !== null || rows.some((row) => row.role === 'battery'))
    flows.battery = battery === null ? null : -battery;
  if (ev !== null || rows.some((row) => row.role === 'ev')) flows.ev = ev;
  const parts = [grid, flows.pv ?? 0, flows.battery ?? 0];
  flows.house =
    parts.some((value) => value === null) || flows.ev === null
      ? null
      : (grid ?? 0) + (flows.pv ?? 0) + (flows.battery ?? 0) - (flows.ev ?? 0);
  return flows;
}

function renderFlow(rows: readonly MeterRow[]): void {
  const card = document.querySelector<HTMLElement>('#energy-flow');
  if (!card) return;
  const flows = energyFlow(rows);
  card.hidden = flows === undefined;
  if (!flows) return;
  const list = card.querySelector('dl')!;
  list.replaceChildren(
    ...Object.entries(flows).flatMap(([key, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = tOr(`meters.flow_${key}`, key);
      const dd = document.createElement('dd');
      dd.dataset.flow = key;
      dd.textContent = `${kw(value)} kW`;
      return [dt, dd];
    }),
  );
}

async function refresh(): Promise<void> {
  const error = document.querySelector<HTMLElement>('#meters-error');
  try {
    const rows = await api<MeterRow[]>('GET', '/api/v1/meters');
    renderFlow(rows);
    await renderTable(rows);
    if (error) error.hidden = true;
  } catch (failure) {
    if (error) {
      error.hidden = false;
      error.textContent = t('meters.failed', { error: (failure as Error).message });
    }
  }
}

/** Shows the page and refreshes it until another page is shown. */
export function showMeters(): void {
  void refresh();
  if (timer === undefined)
    timer = window.setInterval(() => {
      if (document.querySelector<HTMLElement>('#page-meters')?.hidden) {
        window.clearInterval(timer);
        timer = undefined;
        return;
      }
      void refresh();
    }, REFRESH_MS);
}
