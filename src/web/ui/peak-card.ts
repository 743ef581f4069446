import { element } from './api.js';
import { formatNumber } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import type { PeakData, PeakLive } from './peak-live.js';

/**
 * The dashboard's peak card (docs/architecture.md#peak-guard): the window's demand so far and the
 * prediction drawn against the limit, the seconds left, the guard state, allowed power and
 * headroom. Shown only while the guard is on (its view's state is not `off`); every value the bar
 * draws is also written out as text.
 */

const FACTS: Array<[id: string, label: MessageKey]> = [
  ['running', 'peak.running'],
  ['predicted', 'peak.predicted'],
  ['limit', 'peak.limit'],
  ['allowed', 'peak.allowed'],
  ['headroom', 'peak.headroom'],
  ['remaining', 'peak.remaining'],
  ['month', 'peak.month_peak'],
];

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
  const facts = document.createElement('dl');
  facts.className = 'facts peak-facts';
  for (const [id, label] of FACTS) {
    const term = document.createElement('dt');
    term.textContent = t(label);
    const detail = document.createElement('dd');
    const value = document.createElement('output');
    value.id = `peak-${id}`;
    value.textContent = '—';
    detail.append(value);
    if (id !== 'remaining') detail.append(' kW');
    facts.append(term, detail);
  }
  const link = document.createElement('a');
  link.href = '#/peak';
  link.textContent = t('peak.details');
  card.append(title, bar, facts, link);
}

const kw = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : formatNumber(value, 3);

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

function show(card: HTMLElement, data: PeakData): void {
  card.hidden = data.state === 'off';
  if (card.hidden) return;
  const state = element('peak-state');
  state.textContent = peakStateText(data.state);
  state.dataset.state = data.state;
  const limit = data.effective_limit_kw ?? data.limit_kw ?? 0;
  element('peak-running').textContent = kw(data.running_kw);
  element('peak-predicted').textContent = kw(data.predicted_kw);
  element('peak-limit').textContent = kw(limit);
  element('peak-allowed').textContent = kw(data.allowed_kw);
  element('peak-headroom').textContent = kw(data.headroom_kw);
  const remaining = data.window?.remaining_s;
  element('peak-remaining').textContent =
    remaining === null || remaining === undefined ? '—' : t('peak.seconds', { seconds: remaining });
  element('peak-month').textContent = kw(data.month_peak?.kw);
  card.dataset.state = data.state;
  drawBar(data, limit);
}

/** Builds the card and keeps it current from the peak stream. */
export function startPeakCard(live: PeakLive): void {
  const card = element('peak-card');
  build(card);
  live.onUpdate((data) => show(card, data));
}
