import type { PricesView } from '../../contracts/prices.js';
import { api } from './api.js';
import { formatNumber } from './format.js';
import { t } from './i18n/i18n.js';

/**
 * The dashboard's price card (docs/architecture.md#prices): the day-ahead import price of every
 * quarter of today and tomorrow as bars, negative prices below the zero line in their own colour,
 * the current quarter marked; the current price and the day's minimum, maximum and mean. Shown
 * while a price source is set; read from GET /api/v1/prices every five minutes.
 */

const WIDTH = 800;
const HEIGHT = 160;

function svg(name: string, attributes: Record<string, string | number>): SVGElement {
  const made = document.createElementNS('http://www.w3.org/2000/svg', name) as SVGElement;
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, String(value));
  return made;
}

/** The bars of today's and tomorrow's quarters, one after the other. */
export function drawPrices(days: readonly PricesView[]): SVGElement {
  const slots = days.flatMap((day) => day.slots);
  const values = slots.map((slot) => slot.import ?? 0);
  const top = Math.max(0, ...values);
  const span = top - Math.min(0, ...values) || 1;
  const zero = (top / span) * HEIGHT;
  const width = WIDTH / slots.length;
  const picture = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'price-chart', role: 'img' });
  picture.setAttribute('aria-label', t('prices.title'));
  slots.forEach((slot, i) => {
    if (slot.import === null) return;
    const height = (Math.abs(slot.import) / span) * HEIGHT;
    const classes = ['price-bar'];
    if (slot.import < 0) classes.push('negative');
    if (slot.start === days[0]!.current?.start) classes.push('current');
    const bar = svg('rect', {
      x: i * width,
      y: slot.import < 0 ? zero : zero - height,
      width: Math.max(0.5, width - 0.5),
      height: Math.max(0.5, height),
      class: classes.join(' '),
    });
    picture.append(bar);
  });
  picture.append(svg('line', { x1: 0, x2: WIDTH, y1: zero, y2: zero, class: 'price-zero' }));
  return picture;
}

async function refresh(card: HTMLElement): Promise<void> {
  const days: PricesView[] = [];
  for (const day of ['today', 'tomorrow'])
    days.push(await api<PricesView>('GET', `/api/v1/prices?day=${day}`).catch(() => undefined as never));
  const [today] = days;
  card.hidden = !today || today.source === 'none';
  if (card.hidden) return;
  const title = document.createElement('h2');
  title.textContent = t('prices.title');
  const facts = document.createElement('p');
  const money = (value: number | null) => `${formatNumber(value, 4)} ${today!.currency}/kWh`;
  facts.textContent = `${t('prices.facts', {
    now: money(today!.current?.import ?? null),
    min: money(today!.min),
    max: money(today!.max),
    mean: money(today!.mean),
  })} · ${today!.status}`;
  card.replaceChildren(title, drawPrices(days.filter(Boolean)), facts);
}

export function startPriceCard(): void {
  const card = document.getElementById('price-card');
  if (!card) return;
  void refresh(card);
  setInterval(() => void refresh(card), 5 * 60_000);
}
