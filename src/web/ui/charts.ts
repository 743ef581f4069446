import type uPlot from 'uplot';
import { decimalsOfStep, formatNumber, formatTime, type TimeStyle } from './format.js';

declare global {
  interface Window {
    /** uPlot's distribution file (vendor/uplot.min.js) defines this global. */
    uPlot: typeof uPlot;
  }
}

export type ChartData = uPlot.AlignedData;

export const COLORS = {
  import: '#d9480f',
  importMax: '#f59f00',
  export: '#2b8a3e',
  l1: '#1c7ed6',
  l2: '#7048e8',
  l3: '#0c8599',
  net: '#1c63c7',
};

/** A colour of the page's theme (style.css variables, light or dark by the OS setting). */
export function themeColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export interface SeriesSpec {
  label: string;
  stroke: string;
  bars?: boolean;
  dash?: number[];
  fill?: string;
}

function widthOf(container: HTMLElement): number {
  return Math.max(280, container.clientWidth - 8);
}

/** The time axis's span (Unix seconds), asked again on every redraw. */
export type TimeSpan = () => [from: number, to: number];

/**
 * A time-series chart (x in Unix seconds) over `span` that follows its container's width. Bars for
 * per-day energy, lines otherwise. Time ticks in the page's one time format (`ticks`, asked on
 * every redraw when a function), axes and grid in the theme's colours.
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
  // Asked on every draw, so a chart follows the OS switching between light and dark.
  const text = () => themeColor('--muted', '#687083');
  const grid = { stroke: () => themeColor('--line', '#dde2ea'), width: 1 };
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
        values: (_chart, splits) => splits.map((t) => formatTime(t * 1000, style())),
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
        value: (_chart, t) =>
          t === null ? '—' : formatTime(t * 1000, style() === 'minutes' ? 'seconds' : style()),
      },
      ...series.map((spec) => {
        const line: uPlot.Series = {
          label: spec.label,
          stroke: spec.stroke,
          width: 1.5,
          value: (_chart, value) => formatNumber(value, 3),
        };
        if (spec.dash) line.dash = spec.dash;
        if (spec.fill) line.fill = spec.fill;
        if (spec.bars && bars) {
          line.paths = bars;
          line.fill = spec.stroke;
          line.points = { show: false };
        }
        return line;
      }),
    ],
  };
  container.replaceChildren();
  const chart = new UPlot(options, data, container);
  window
    .matchMedia('(prefers-color-scheme: dark)')
    .addEventListener('change', () => chart.redraw(false, true));
  new ResizeObserver(() => {
    const width = widthOf(container);
    if (width !== chart.width) chart.setSize({ width, height: 240 });
  }).observe(container);
  return chart;
}
