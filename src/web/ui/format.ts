import { currentLocale } from './i18n/i18n.js';

const numberFormats = new Map<string, Intl.NumberFormat>();

/**
 * Numbers as the page shows them, in the chosen language's locale (decimal comma in de, fr, nl)
 * without thousands separators, so a column of meter totals reads alike in every language; a value
 * the meter did not send is a dash. A value that rounds to zero is shown without its sign (never
 * "-0.000"). `locale` only for tests.
 */
export function formatNumber(value: unknown, decimals: number, locale: string = currentLocale()): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const key = `${locale}|${decimals}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
      useGrouping: false,
    });
    numberFormats.set(key, format);
  }
  const rounded = Number(value.toFixed(decimals));
  return format.format(rounded === 0 ? 0 : value);
}

/** An amount in the page's locale (CHF 1.25, 1,25 €); a currency Intl does not know: "1,25 XYZ1". */
export function formatMoney(value: number, currency: string, locale: string = currentLocale()): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value);
  } catch {
    return `${formatNumber(value, 2, locale)} ${currency}`;
  }
}

/** A signed number (the net power, import minus export): "+" before a positive value, zero unsigned. */
export function formatSigned(value: unknown, decimals: number, locale?: string): string {
  const text = formatNumber(value, decimals, locale);
  if (typeof value !== 'number' || !Number.isFinite(value)) return text;
  return Number(value.toFixed(decimals)) > 0 ? `+${text}` : text;
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
 * The one time format of the page: the chosen language's locale through Intl (24 h where the
 * locale uses it); `locale` only for tests, the page passes none.
 */
export type TimeStyle = 'seconds' | 'minutes' | 'day' | 'weekday' | 'month' | 'date' | 'stamp' | 'full';

const STYLES: Record<TimeStyle, Intl.DateTimeFormatOptions> = {
  seconds: { hour: '2-digit', minute: '2-digit', second: '2-digit' },
  minutes: { hour: '2-digit', minute: '2-digit' },
  day: { day: 'numeric', month: 'short' },
  weekday: { weekday: 'short', day: 'numeric' },
  month: { month: 'short' },
  date: { weekday: 'short', day: 'numeric', month: 'long', year: 'numeric' },
  stamp: { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' },
  full: { dateStyle: 'short', timeStyle: 'medium' },
};

/**
 * Formatters by locale, style and time zone: a formatter keeps the zone it was made in, so one made
 * before the zone changed (a test process that runs files of several zones) must not be reused.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

export function formatTime(ms: number, style: TimeStyle, locale: string = currentLocale()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${locale}|${style}|${zone}`;
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

/**
 * The meter's protocol version as its standard writes it. DSMR sends the version as two digits
 * without the point (object 1-3:0.2.8, e.g. `(50)` for DSMR 5.0, `(42)` for 4.2: DSMR P1 companion
 * standard 5.0.2, section 6.12), so the page shows `5.0`, not `50`; anything else is shown as sent.
 */
export function protocolVersionText(protocol: string | undefined, version: string): string {
  if (protocol?.toUpperCase() === 'DSMR' && /^\d\d$/.test(version)) return `${version[0]}.${version[1]}`;
  return version;
}

/** A duration in whole seconds as minutes and seconds, `m:ss` (425 -> "7:05"); a dash for none. */
export function formatMinutes(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '—';
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
