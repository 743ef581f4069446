/**
 * Local calendar days of the price series (docs/architecture.md#time-zones): prices are stored and
 * fetched in UTC quarters and grouped by the process's local day, which has 96 quarters, 92 on the
 * spring DST day and 100 on the autumn one.
 */

/** `YYYY-MM-DD` of the local day that contains `ms`. */
export function localDate(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** [start, end) in ms of the local day `YYYY-MM-DD`, or undefined for an invalid date. */
export function localDayBounds(day: string): { start: number; end: number } | undefined {
  const match = /^(\d{4})-(\d\d)-(\d\d)$/.exec(day);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const start = new Date(y, m, d);
  if (start.getFullYear() !== y || start.getMonth() !== m || start.getDate() !== d) return undefined;
  return { start: start.getTime(), end: new Date(y, m, d + 1).getTime() };
}

/** The local date `days` after `day`. */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return localDate(new Date(y, m - 1, d + days, 12).getTime());
}

/** Minute of the local day at `ms` (the time-of-use tables and charge zones are local). */
export function localMinute(ms: number): number {
  const date = new Date(ms);
  return date.getHours() * 60 + date.getMinutes();
}
