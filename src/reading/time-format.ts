/**
 * Date-time strings of the report (docs/architecture.md#time-zones): `date_time` and `date_time_local`
 * ISO 8601 local time with the local offset (the device documents `date_time_local` as "local time
 * zone with timezone offset", e.g. 2025-10-07T14:26:10+02:00), `date_time_utc` with `Z`. Local
 * means the TZ of the process.
 */
export interface DateTimes {
  date_time: string;
  date_time_local: string;
  date_time_utc: string;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function localDateTime(date: Date): string {
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

export function offsetSuffix(date: Date): string {
  const offset = -date.getTimezoneOffset();
  if (offset === 0) return 'Z';
  const sign = offset > 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export function dateTimes(ms: number): DateTimes {
  const date = new Date(ms);
  const local = localDateTime(date);
  return {
    date_time: local + offsetSuffix(date),
    date_time_local: local + offsetSuffix(date),
    date_time_utc: date.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** Live payload `Date` (Y-m-d) and `Time` (H:M:S), local time. */
export function liveDateAndTime(ms: number): { Date: string; Time: string } {
  const local = localDateTime(new Date(ms));
  return { Date: local.slice(0, 10), Time: local.slice(11) };
}

/**
 * Local ISO 8601 text with its offset, +00:00 rather than Z at UTC (the peak guard's and the
 * prices' JSON), e.g. 2022-12-06T22:15:00+01:00.
 */
export function localIso(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(Math.floor(Math.abs(value))).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}
