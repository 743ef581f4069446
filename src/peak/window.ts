/**
 * Demand windows aligned to the local clock (docs/architecture.md#peak-guard). A window of W
 * seconds (W divides an hour) starts where the local time of day is a multiple of W: local
 * quarter hours and local hours. Local offsets change on whole hours (or quarter hours), so a
 * window never straddles an offset change and always lasts W seconds of real time; on a DST day
 * there are 23 or 25 hourly windows (92 or 100 quarter hours). Times are milliseconds since the
 * epoch; the local zone is the process's (TZ).
 */

export interface DemandWindow {
  /** Start and end, ms since the epoch; end − start = W s. */
  start: number;
  end: number;
  seconds: number;
}

/** Local-minus-UTC offset at `ms`, in seconds. */
function offsetSeconds(ms: number): number {
  return -new Date(ms).getTimezoneOffset() * 60;
}

/** The window of `seconds` containing `ms`; a time on a boundary opens the next window. */
export function windowAt(ms: number, seconds: number): DemandWindow {
  const local = Math.floor(ms / 1000) + offsetSeconds(ms);
  const into = ((local % seconds) + seconds) % seconds;
  const start = (Math.floor(ms / 1000) - into) * 1000;
  return { start, end: start + seconds * 1000, seconds };
}

/** The local calendar month of `ms` as "YYYY-MM". */
export function monthOf(ms: number): string {
  const date = new Date(ms);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}`;
}

/** The local calendar day of `ms` as "YYYY-MM-DD". */
export function dayOf(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export { localIso } from '../reading/time-format.js';
