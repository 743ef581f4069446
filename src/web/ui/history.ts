import type uPlot from 'uplot';
import type { HistoryView, PointView } from '../../contracts/history.js';
import { api, ApiError, element } from './api.js';
import { COLORS, createChart, FILLS, type SeriesSpec } from './charts.js';
import { t } from './i18n/i18n.js';
import { formatNumber, type TimeStyle } from './format.js';

interface RangeView {
  id: string;
  resolution: '1m' | '15m' | '1d';
  from: (now: Date) => Date;
  kind: 'power' | 'energy';
  ticks: TimeStyle;
}

const DAY_MS = 86_400_000;

const RANGES: readonly RangeView[] = [
  {
    id: 'history-today',
    resolution: '1m',
    from: (now) => new Date(now.getFullYear(), now.getMonth(), now.getDate()),
    kind: 'power',
    ticks: 'minutes',
  },
  {
    id: 'history-week',
    resolution: '15m',
    from: (now) => new Date(now.getTime() - 7 * DAY_MS),
    kind: 'power',
    ticks: 'weekday',
  },
  {
    id: 'history-year',
    resolution: '1d',
    from: (now) => new Date(now.getFullYear() - 1, now.getMonth(), now.getDate()),
    kind: 'energy',
    ticks: 'day',
  },
];

const POWER_SERIES: SeriesSpec[] = [
  { label: 'chart.import_mean', stroke: COLORS.import, fill: FILLS.import },
  { label: 'chart.import_max', stroke: COLORS.importMax, dash: [3, 3] },
  { label: 'chart.export_mean', stroke: COLORS.export, fill: FILLS.export },
];
const ENERGY_SERIES: SeriesSpec[] = [
  { label: 'common.import', stroke: COLORS.import, bars: true },
  { label: 'common.export', stroke: COLORS.export, bars: true },
];

const charts = new Map<string, uPlot>();
/** The requested range of each chart, the whole of which its time axis shows. */
const spans = new Map<string, [number, number]>();

function columnsOf(points: readonly PointView[], kind: RangeView['kind']): uPlot.AlignedData {
  const t = points.map((point) => point.t);
  if (kind === 'energy') {
    return [
      t,
      points.map((point) => point.e_in),
      points.map((point) => (point.e_out === null ? null : -point.e_out)),
    ];
  }
  return [
    t,
    points.map((point) => point.p_in?.mean ?? null),
    points.map((point) => point.p_in?.max ?? null),
    points.map((point) => (point.p_out ? -point.p_out.mean : null)),
  ];
}

function total(points: readonly PointView[], key: 'e_in' | 'e_out'): number {
  return points.reduce((sum, point) => sum + (point[key] ?? 0), 0);
}

async function showRange(range: RangeView, now: Date): Promise<void> {
  const note = element(`${range.id}-note`);
  const from = Math.floor(range.from(now).getTime() / 1000);
  const to = Math.floor(now.getTime() / 1000);
  let answer: HistoryView;
  try {
    answer = await api<HistoryView>(
      'GET',
      `/api/v1/history?from=${from}&to=${to}&resolution=${range.resolution}`,
    );
  } catch (error) {
    note.textContent =
      error instanceof ApiError && error.status === 404
        ? t('history.not_available')
        : t('history.read_failed', { message: (error as Error).message });
    return;
  }
  const points = answer.points;
  note.textContent =
    points.length === 0
      ? t('history.no_data_yet')
      : t(points.length === 1 ? 'history.summary_one' : 'history.summary', {
          count: points.length,
          resolution: answer.resolution,
          in: formatNumber(total(points, 'e_in'), 3),
          out: formatNumber(total(points, 'e_out'), 3),
        });
  note.dataset.points = String(points.length);
  const data = columnsOf(points, range.kind);
  spans.set(range.id, [answer.from, answer.to]);
  const chart = charts.get(range.id);
  if (chart) chart.setData(data);
  else
    charts.set(
      range.id,
      createChart(
        element(range.id),
        range.kind === 'energy' ? ENERGY_SERIES : POWER_SERIES,
        data,
        range.kind === 'energy' ? 'kWh' : 'kW',
        () => spans.get(range.id)!,
        range.ticks,
      ),
    );
}

/** Loads (or reloads) the three history charts: today, the last 7 days, the last 12 months. */
export async function showHistory(): Promise<void> {
  const now = new Date();
  await Promise.all(RANGES.map((range) => showRange(range, now)));
}
