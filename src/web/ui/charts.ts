import type uPlot from 'uplot';
import { decimalsOfStep, formatNumber, formatTime, type TimeStyle } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import { timeAxisLabels } from './time-axis.js';

declare global {
  interface Window {
    /** uPlot's distribution file (vendor/uplot.min.js) defines this global. */
    uPlot: typeof uPlot;
  }
}

export type ChartData = uPlot.AlignedData;

/** Series colours: the theme's CSS variables (theme.css), read on every draw. */
export const COLORS = {
  import: '--import',
  importMax: '--import-max',
  export: '--export',
  l1: '--l1',
  l2: '--l2',
  l3: '--l3',
  net: '--net',
} as const;

/** Area fills under the import and export lines (theme.css). */
export const FILLS = { import: '--import-fill', export: '--export-fill' } as const;

/** A colour of the page's theme (theme.css variables, light or dark). */
export function themeColor(name: string, fallback = '#888'): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export interface SeriesSpec {
  label: MessageKey;
  /** CSS variable of the line (and bar) colour. */
  stroke: string;
  bars?: boolean;
  dash?: number[];
  /** CSS variable of the area fill. */
  fill?: string;
}

function widthOf(container: HTMLElement): number {
  return Math.max(280, container.clientWidth - 8);
}

/** The time axis's span (Unix seconds), asked again on every redraw. */
export type TimeSpan = () => [from: number, to: number];

function seriesOf(spec: SeriesSpec, bars: uPlot.Series.PathBuilder | undefined): uPlot.Series {
  const color = () => themeColor(spec.stroke);
  const line: uPlot.Series = {
    label: t(spec.label),
    stroke: color,
    width: 1.5,
    value: (_chart, value) => formatNumber(value, 3),
  };
  if (spec.dash) line.dash = spec.dash;
  if (spec.fill) line.fill = () => themeColor(spec.fill!);
  if (spec.bars && bars) {
    line.paths = bars;
    line.fill = color;
    line.points = { show: false };
  }
  return line;
}

/**
 * A time-series chart (x in Unix seconds) over `span` that follows its container's width. Bars for
 * per-day energy, lines otherwise. Time ticks in the page's locale, labelled by the tick step
 * (time-axis.ts; the labels drawn are also in the container's data-x-labels); axes, grid and series
 * in the theme's colours, redrawn when the theme changes.
 */
export function createChart(
  container: HTMLElement,
  series: readonly SeriesSpec[],
  data: ChartData,
  unit: string,
  span: TimeSpan,
  ticks: TimeStyle | (() => TimeStyle) = 'minutes',
): uPlot {
  const style = typeof ticks === 'function' ? ticks : () => ticks;
  const UPlot = window.uPlot;
  const bars = UPlot.paths.bars?.({ size: [0.7, 40] });
  const text = () => themeColor('--muted');
  const grid = { stroke: () => themeColor('--line'), width: 1 };
  const options: uPlot.Options = {
    width: widthOf(container),
    height: 240,
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true, range: () => span() } },
    axes: [
      {
        stroke: text,
        grid,
        ticks: grid,
        // Room for a 12-hour label ("12:00 AM") between two ticks, also on a phone.
        space: 80,
        values: (_chart, splits, _axis, _space, incr) => {
          const [from, to] = span();
          const labels = timeAxisLabels(splits, incr, style(), to - from);
          container.dataset.xLabels = JSON.stringify(labels);
          return labels;
        },
      },
      {
        label: unit,
        size: 56,
        stroke: text,
        grid,
        ticks: grid,
        values: (_chart, splits, _axis, _space, step) =>
          splits.map((value) => formatNumber(value, decimalsOfStep(step))),
      },
    ],
    series: [
      {
        label: t('chart.time'),
        value: (_chart, x) =>
          x === null ? '—' : formatTime(x * 1000, style() === 'minutes' ? 'seconds' : style()),
      },
      ...series.map((spec) => seriesOf(spec, bars)),
    ],
  };
  container.replaceChildren();
  const chart = new UPlot(options, data, container);
  window.addEventListener('themechange', () => chart.redraw(false, true));
  new ResizeObserver(() => {
    const width = widthOf(container);
    if (width !== chart.width) chart.setSize({ width, height: 240 });
  }).observe(container);
  return chart;
}
