/**
 * Wall-clock times in a named zone other than the process's: the day-ahead auction publishes at
 * about 12:45 CET (EPEX SPOT / Nord Pool SDAC timeline, "results published at 12:45 CET"), whatever
 * the meter's own zone.
 */

function offsetMs(zone: string, at: number): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(new Date(at))
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === '-' ? -minutes : minutes) * 60_000;
}

/** UTC ms of `hh:mm` on calendar date `day` (YYYY-MM-DD) in `zone`. */
export function zonedTime(day: string, hh: number, mm: number, zone = 'Europe/Brussels'): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const naive = Date.UTC(y, m - 1, d, hh, mm);
  const first = naive - offsetMs(zone, naive);
  return naive - offsetMs(zone, first);
}
