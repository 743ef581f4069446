import { addDays, localDate, localDayBounds } from './local-day.js';
import { zonedTime } from './zoned-time.js';

/**
 * When the price store asks its source (docs/architecture.md#prices): today at start and while it
 * is missing every 15 minutes; tomorrow from 13:00 CET plus a random 0..45 minutes (the auction's
 * results come at about 12:45 CET; the spread keeps many gateways from asking at once), every 15
 * minutes up to 16:00 CET, then hourly.
 */

const RETRY_MS = 15 * 60_000;
const LATE_RETRY_MS = 60 * 60_000;
const PUBLISH_SPREAD_MS = 45 * 60_000;

/** When tomorrow's prices are asked for first, drawn once per day (the last few days kept). */
export class PublicationTimes {
  private readonly publishAt = new Map<string, number>();

  constructor(private readonly random: () => number) {}

  /** 13:00 CET of `today` plus the day's spread. */
  of(today: string): number {
    let at = this.publishAt.get(today);
    if (at === undefined) {
      at = zonedTime(today, 13, 0) + Math.floor(this.random() * PUBLISH_SPREAD_MS);
      this.publishAt.set(today, at);
      if (this.publishAt.size > 4) this.publishAt.delete(this.publishAt.keys().next().value!);
    }
    return at;
  }
}

/**
 * The next fetch after `now`, given which days are had: never before `blockedUntil` (a 429), and
 * no later than local midnight, when tomorrow becomes today.
 */
export function nextWake(
  now: number,
  has: (day: string) => boolean,
  publication: PublicationTimes,
  blockedUntil: number,
): number {
  const today = localDate(now);
  const midnight = localDayBounds(today)!.end;
  let at: number;
  if (!has(today)) at = now + RETRY_MS;
  else if (now < publication.of(today)) at = publication.of(today);
  else if (!has(addDays(today, 1))) at = now + (now < zonedTime(today, 16, 0) ? RETRY_MS : LATE_RETRY_MS);
  else at = publication.of(addDays(today, 1));
  // At local midnight tomorrow becomes today: a missing day is asked for then.
  return Math.max(blockedUntil, Math.min(at, midnight));
}
