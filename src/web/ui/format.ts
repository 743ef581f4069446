/**
 * Numbers as the dashboard shows them; a value the meter did not send is a dash. A value that rounds
 * to zero is shown without its sign (never "-0.000").
 */
export function formatNumber(value: unknown, decimals: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const text = value.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A signed number (the net power, import minus export): "+" before a positive value, zero unsigned. */
export function formatSigned(value: unknown, decimals: number): string {
  const text = formatNumber(value, decimals);
  return text === '—' || text.startsWith('-') || Number(text) === 0 ? text : `+${text}`;
}

/** Decimals that show a chart's tick step exactly (0.0005 -> 4, 0.25 -> 2, 20 -> 0; at most 6). */
export function decimalsOfStep(step: number): number {
  if (!(step > 0) || !Number.isFinite(step)) return 0;
  for (let decimals = 0; decimals < 6; decimals += 1) {
    const scaled = step * 10 ** decimals;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * scaled) return decimals;
  }
  return 6;
}

/** Decimals by live key: kW and kWh to the watt(-hour), volts to 0.1, amperes to 0.01. */
export function decimalsOf(key: string): number {
  if (key.startsWith('V_')) return 1;
  if (key.startsWith('I_')) return 2;
  if (key === 'T') return 0;
  return 3;
}

/**
 * The one time format of the page: the browser's locale through Intl (24 h where the locale uses
 * it); `locale` only for tests, the page passes none.
 */
export type TimeStyle = 'seconds' | 'minutes' | 'day' | 'weekday' | 'month' | 'date' | 'stamp';

const STYLES: Record<TimeStyle, Intl.DateTimeFormatOptions> = {
  seconds: { hour: '2-digit', minute: '2-digit', second: '2-digit' },
  minutes: { hour: '2-digit', minute: '2-digit' },
  day: { day: 'numeric', month: 'short' },
  weekday: { weekday: 'short', day: 'numeric' },
  month: { month: 'short' },
  date: { weekday: 'short', day: 'numeric', month: 'long', year: 'numeric' },
  stamp: { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' },
};

const formatters = new Map<string, Intl.DateTimeFormat>();

export function formatTime(ms: number, style: TimeStyle, locale?: string): string {
  const key = `${locale ?? ''}|${style}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, STYLES[style]);
    formatters.set(key, formatter);
  }
  return formatter.format(ms);
}

export function clockTime(date: Date): string {
  return formatTime(date.getTime(), 'seconds');
}
