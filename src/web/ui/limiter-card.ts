import type { ExportLimiterView } from '../../contracts/export-limiter.js';
import { element } from './api.js';
import { formatNumber } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import { onStream } from './page-stream.js';

/**
 * The dashboard's export limiter card (docs/architecture.md#export-limiter): mode, state, the
 * decision's reason, grid power against the target, and per inverter its reported output and the
 * limit the gateway holds, live from the page's stream (`export_limiter` events, one per control
 * step, src/web/ui/page-stream.ts). Shown only while the limiter is enabled.
 */

const watts = (value: number | null): string => (value === null ? '—' : formatNumber(value, 0));

function fact(list: HTMLElement, id: string, label: MessageKey): void {
  const term = document.createElement('dt');
  term.textContent = t(label);
  const detail = document.createElement('dd');
  const value = document.createElement('output');
  value.id = `limiter-${id}`;
  value.textContent = '—';
  detail.append(value);
  list.append(term, detail);
}

function build(card: HTMLElement): void {
  const title = document.createElement('h2');
  const name = document.createElement('span');
  name.textContent = t('limiter.title');
  const state = document.createElement('span');
  state.id = 'limiter-state';
  state.className = 'badge';
  title.append(name, ' ', state);
  const facts = document.createElement('dl');
  facts.className = 'facts';
  fact(facts, 'mode', 'limiter.mode');
  fact(facts, 'grid', 'limiter.grid');
  fact(facts, 'target', 'limiter.target');
  fact(facts, 'reason', 'limiter.reason');
  const table = document.createElement('table');
  table.id = 'limiter-inverters';
  const head = table.createTHead().insertRow();
  for (const label of ['limiter.col_inverter', 'limiter.col_output', 'limiter.col_limit'] as const) {
    const cell = document.createElement('th');
    cell.textContent = t(label);
    head.append(cell);
  }
  table.createTBody();
  const scroll = document.createElement('div');
  scroll.className = 'table-scroll';
  scroll.append(table);
  card.append(title, facts, scroll);
}

function show(card: HTMLElement, view: ExportLimiterView): void {
  card.hidden = !view.enabled;
  if (card.hidden) return;
  const state = element('limiter-state');
  state.textContent = t(`limiter.state_${view.state}` as MessageKey);
  state.dataset.state = view.state;
  element('limiter-mode').textContent = t(`limiter.mode_${view.mode}` as MessageKey);
  element('limiter-grid').textContent = `${watts(view.grid_w)} W`;
  element('limiter-target').textContent = `${watts(view.target_w)} W`;
  element('limiter-reason').textContent = view.reason;
  const body = element<HTMLTableElement>('limiter-inverters').tBodies[0]!;
  body.replaceChildren(
    ...view.inverters.map((inverter) => {
      const row = document.createElement('tr');
      row.dataset.inverter = inverter.id;
      // A Victron ESS is commanded a grid setpoint in W, with no percentage.
      const limit =
        inverter.commanded_w === null
          ? t('limiter.no_limit')
          : inverter.commanded_pct === null
            ? `${watts(inverter.commanded_w)} W`
            : `${watts(inverter.commanded_w)} W (${formatNumber(inverter.commanded_pct, 1)} %)`;
      for (const text of [inverter.id, watts(inverter.reported_w), limit]) {
        const cell = document.createElement('td');
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }),
  );
}

/** Builds the card, which follows the `export_limiter` events of the page's one stream. */
export function startLimiterCard(): void {
  const card = element('limiter-card');
  build(card);
  onStream<ExportLimiterView>('export_limiter', (view) => show(card, view));
}
