import { RESOLUTIONS, type Resolution } from '../contracts/values.js';

/**
 * The three tiers of the history store: 1-minute buckets for 48 h, 15-minute buckets for a year,
 * daily buckets for 10 years, each a ring of fixed capacity (a little more than the promised span,
 * so a query reaching exactly 48 h / 1 year / 10 years back still finds its oldest bucket).
 *
 * Minute and quarter-hour buckets are aligned to Unix time (every time zone in use today is a
 * whole multiple of 15 minutes off UTC, so they are aligned to local time as well). Daily buckets
 * are local calendar days of the process's time zone (TZ): a day starts at local midnight and
 * lasts 23, 24 or 25 hours around DST changes; where a DST change skips midnight itself the day
 * starts at the first local time that exists (ECMAScript Date resolves the skipped time forward).
 */
export { RESOLUTIONS, type Resolution };

export interface Tier {
  resolution: Resolution;
  /** Ring slots (records) in the tier's file. */
  capacity: number;
  /** Nominal bucket length in seconds (header field; days vary around DST). */
  nominalSeconds: number;
  /** How far back the tier promises data, ms. */
  retentionMs: number;
  /** Start (Unix s) of the bucket that contains the instant `ms`. */
  bucketOf(ms: number): number;
  /** Consecutive number of the bucket starting at `t` (ring slot = number mod capacity). */
  numberOf(t: number): number;
  /** End (Unix s, exclusive) of the bucket starting at `t`. */
  endOf(t: number): number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function fixedTier(resolution: Resolution, seconds: number, capacity: number, retentionMs: number): Tier {
  return {
    resolution,
    capacity,
    nominalSeconds: seconds,
    retentionMs,
    bucketOf: (ms) => Math.floor(ms / 1000 / seconds) * seconds,
    numberOf: (t) => Math.floor(t / seconds),
    endOf: (t) => t + seconds,
  };
}

/** Start of the local calendar day y-m-d (month 0-based; days past the month's end roll over). */
function localDayStart(year: number, month: number, day: number): number {
  return Math.floor(new Date(year, month, day).getTime() / 1000);
}

const dailyTier: Tier = {
  resolution: '1d',
  capacity: 3660,
  nominalSeconds: 86_400,
  retentionMs: 3653 * DAY_MS,
  bucketOf(ms) {
    const date = new Date(ms);
    return localDayStart(date.getFullYear(), date.getMonth(), date.getDate());
  },
  numberOf(t) {
    const date = new Date(t * 1000);
    return Math.round(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / DAY_MS);
  },
  endOf(t) {
    const date = new Date(t * 1000);
    return localDayStart(date.getFullYear(), date.getMonth(), date.getDate() + 1);
  },
};

export const TIERS: Readonly<Record<Resolution, Tier>> = {
  '1m': fixedTier('1m', 60, 2940, 48 * HOUR_MS),
  '15m': fixedTier('15m', 900, 35_232, 366 * DAY_MS),
  '1d': dailyTier,
};
