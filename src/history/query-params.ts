import type { ValidationIssue } from '../config/config-store.js';
import { RESOLUTIONS, TIERS, type Resolution } from './tiers.js';

/**
 * Parameters of GET /api/v1/history: `from` and `to` as Unix seconds or ISO 8601 (a date-time,
 * with `Z` or an offset, or without one meaning local time; a date alone is local midnight),
 * defaults to = now and from = to - 24 h; `resolution` 1m, 15m, 1d or auto (the default).
 */
export interface HistoryQuery {
  resolution: Resolution;
  /** ms since the epoch */
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;
const UNIX_SECONDS = /^\d{1,12}(\.\d{1,3})?$/;
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
/** 9999-12-31T23:59:59Z: beyond it ISO 8601 needs an expanded year. */
const LATEST_SECONDS = 253_402_300_799;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** ms since the epoch of an ISO 8601 date or date-time, or undefined when it is not one. */
function parseIso(text: string): number | undefined {
  const match = ISO_8601.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', zone] = match;
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1) return undefined;
  if (Number(day) > daysInMonth(Number(year), Number(month))) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  if (zone && !/^(Z|[+-](0\d|1[0-4]):?[0-5]\d)$/i.test(zone)) return undefined;
  // ECMAScript reads a date-time without offset as local time; a date alone would be UTC.
  const normalised = match[4] === undefined ? `${text}T00:00:00` : text.replace(' ', 'T');
  const ms = Date.parse(normalised.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

function parseTime(name: string, text: string | null, issues: ValidationIssue[]): number | undefined {
  if (text === null) return undefined;
  const ms = UNIX_SECONDS.test(text) ? Number(text) * 1000 : parseIso(text);
  if (ms === undefined || ms < 0 || ms > LATEST_SECONDS * 1000) {
    issues.push({ field: name, message: 'must be Unix seconds or an ISO 8601 date-time', value: text });
    return undefined;
  }
  return ms;
}

/**
 * The finest tier that still keeps `from` and gives at most about 3000 points: 1m for spans up to
 * 48 h, 15m up to 31 days, 1d beyond (today: 1m, the last 7 days: 15m, the last 12 months: 1d).
 * A span whose start is older than the finer tier keeps goes to the next coarser tier.
 */
export function autoResolution(from: number, to: number, now: number): Resolution {
  const span = to - from;
  if (span <= TIERS['1m'].retentionMs && from >= now - TIERS['1m'].retentionMs) return '1m';
  if (span <= 31 * DAY_MS && from >= now - TIERS['15m'].retentionMs) return '15m';
  return '1d';
}

export function parseHistoryQuery(
  query: URLSearchParams,
  now: number,
): { query?: HistoryQuery; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const to = parseTime('to', query.get('to'), issues);
  const from = parseTime('from', query.get('from'), issues);
  const resolution = query.get('resolution') ?? 'auto';
  if (resolution !== 'auto' && !RESOLUTIONS.includes(resolution as Resolution))
    issues.push({ field: 'resolution', message: 'must be 1m, 15m, 1d or auto', value: resolution });
  if (issues.length > 0) return { issues };
  const end = to ?? now;
  const start = from ?? end - DAY_MS;
  if (start > end) {
    issues.push({ field: 'from', message: 'must not be later than to', value: query.get('from') ?? start });
    return { issues };
  }
  return {
    query: {
      from: start,
      to: end,
      resolution: resolution === 'auto' ? autoResolution(start, end, now) : (resolution as Resolution),
    },
    issues,
  };
}
