import { element } from './api.js';
import { formatMinutes, formatNumber } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import type { PeakData, PeakLive } from './peak-live.js';

/**
 * The dashboard's peak card (docs/architecture.md#peak-guard): the window's demand so far and the
 * prediction drawn against the limit, the time left (m:ss), the guard state, allowed power and
 * headroom. Shown only while the guard is on (its view's state is not `off`); every value the bar
 * draws is also written out as text.
 */

/** The facts of the card: the id part of each value's element and its label. */
export type PeakFact = [id: string, label: MessageKey];

const FACTS: PeakFact[] = [
  ['running', 'peak.running'],
  ['predicted', 'peak.predicted'],
  ['limit', 'peak.limit'],
  ['allowed', 'peak.allowed'],
  ['headroom', 'peak.headroom'],
  ['remaining', 'peak.remaining'],
  ['month', 'peak.month_peak'],
];

/**
 * The facts as a definition list whose label/value pairs are grouped (a `div` per pair, as HTML
 * allows in a `dl`), so the grid wraps whole pairs and a value never lands under another label.
 * Each value is an `output` with the id `<prefix>-<id>`.
 */
export function peakFacts(facts: readonly PeakFact[], prefix: string): HTMLDListElement {
  const list = document.createElement('dl');
  list.className = 'facts peak-facts';
  for (const [id, label] of facts) {
    const pair = document.createElement('div');
    pair.className = 'peak-fact';
    const term = document.createElement('dt');
    term.textContent = t(label);
    const detail = document.createElement('dd');
    const value = document.createElement('output');
    value.id = `${prefix}-${id}`;
    value.textContent = '—';
    detail.append(value);
    if (id !== 'remaining') detail.append(' kW');
    pair.append(term, detail);
    list.append(pair);
  }
  return list;
}

export function peakStateText(state: PeakData['state']): string {
  return t(`peak.state_${state}` as MessageKey);
}

function build(card: HTMLElement): void {
  const title = document.createElement('h2');
  const name = document.createElement('span');
  name.textContent = t('peak.title');
  const state = document.createElement('span');
  state.id = 'peak-state';
  state.className = 'badge peak-state';
  title.append(name, ' ', state);
  const bar = document.createElement('div');
  bar.id = 'peak-bar';
  bar.className = 'peak-bar';
  bar.setAttribute('role', 'img');
  for (const part of ['running', 'predicted', 'limit']) {
    const mark = document.createElement('div');
    mark.className = `peak-${part}`;
    mark.dataset.part = part;
    bar.append(mark);
  }
  const facts = peakFacts(FACTS, 'peak');
  const link = document.createElement('a');
  link.href = '#/peak';
  link.textContent = t('peak.details');
  card.append(title, bar, facts, link);
}

const kw = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : formatNumber(value, 3);

const limitOf = (data: PeakData): number => data.effective_limit_kw ?? data.limit_kw ?? 0;

/** Bar widths in % of a scale that holds the limit and both values, with room above the limit. */
function drawBar(data: PeakData, limit: number): void {
  const running = data.running_kw ?? 0;
  const predicted = data.predicted_kw ?? running;
  const scale = Math.max(limit * 1.25, running, predicted, 0.001);
  const percent = (value: number) => `${Math.min(100, Math.max(0, (value / scale) * 100)).toFixed(2)}%`;
  const bar = element('peak-bar');
  bar.querySelector<HTMLElement>('[data-part=running]')!.style.width = percent(running);
  bar.querySelector<HTMLElement>('[data-part=predicted]')!.style.width = percent(predicted);
  bar.querySelector<HTMLElement>('[data-part=limit]')!.style.left = percent(limit);
  bar.dataset.over = String(predicted > limit);
  bar.setAttribute(
    'aria-label',
    t('peak.bar', { running: kw(data.running_kw), predicted: kw(data.predicted_kw), limit: kw(limit) }),
  );
}

/** The values of the view in the elements peakFacts made; the limit is the effective one. */
export function showPeakFacts(facts: readonly PeakFact[], prefix: string, data: PeakData): void {
  const values: Record<string, string> = {
    running: kw(data.running_kw),
    predicted: kw(data.predicted_kw),
    limit: kw(limitOf(data)),
    allowed: kw(data.allowed_kw),
    headroom: kw(data.headroom_kw),
    remaining: formatMinutes(data.window?.remaining_s),
    month: kw(data.month_peak?.kw),
  };
  for (const [id] of facts) element(`${prefix}-${id}`).textContent = values[id] ?? '—';
}

function show(card: HTMLElement, data: PeakData): void {
  card.hidden = data.state === 'off';
  if (card.hidden) return;
  const state = element('peak-state');
  state.textContent = peakStateText(data.state);
  state.dataset.state = data.state;
  const limit = limitOf(data);
  showPeakFacts(FACTS, 'peak', data);
  card.dataset.state = data.state;
  drawBar(data, limit);
}

/** Builds the card and keeps it current from the peak stream. */
export function startPeakCard(live: PeakLive): void {
  const card = element('peak-card');
  build(card);
  live.onUpdate((data) => show(card, data));
}
