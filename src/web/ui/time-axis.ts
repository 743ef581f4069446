import { formatTime, type TimeStyle } from './format.js';

const DAY_S = 86_400;
/** A month's tick step and above (uPlot's time increments: 28..31 days and multiples). */
const MONTH_S = 28 * DAY_S;

function dayOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;
}

/**
 * The labels of a time axis, chosen by the tick step uPlot found (`incr`, seconds) rather than by
 * the chart alone, so a label always names what differs between two ticks: months for steps of a
 * month, days (the chart's day style) for steps of a day or more, clock times below that, with
 * the day above the time where a day begins on a chart that spans several days. No label repeats
 * on an axis: a clock time seen before gets its day, any other repeat is left out (never "Mon 3,
 * Mon 3, Mon 3" under 6-hourly ticks, nor "Jan, Jan" under half-monthly ones). DOM-free.
 */
export function timeAxisLabels(
  splits: readonly number[],
  incr: number,
  preferred: TimeStyle,
  spanSeconds: number,
  locale?: string,
): string[] {
  const dayStyle: TimeStyle = preferred === 'weekday' ? 'weekday' : 'day';
  const clockStyle: TimeStyle = incr < 60 ? 'seconds' : 'minutes';
  let previousDay = '';
  const seen = new Set<string>();
  return splits.map((t) => {
    let label: string;
    if (incr >= MONTH_S) label = formatTime(t * 1000, 'month', locale);
    else if (incr >= DAY_S) label = formatTime(t * 1000, dayStyle, locale);
    else {
      label = formatTime(t * 1000, clockStyle, locale);
      const day = dayOf(t);
      if (spanSeconds > DAY_S && day !== previousDay)
        label = `${formatTime(t * 1000, dayStyle, locale)}\n${label}`;
      previousDay = day;
    }
    // A clock time seen before on this axis (the next day's midnight) gets its day; still a repeat: none.
    if (seen.has(label) && incr < DAY_S) label = `${formatTime(t * 1000, dayStyle, locale)}\n${label}`;
    if (seen.has(label)) return '';
    seen.add(label);
    return label;
  });
}
