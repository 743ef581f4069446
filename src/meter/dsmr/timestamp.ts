/**
 * DSMR timestamps (DSMR 5.0.2 §6.4, type TST): YYMMDDhhmmssX in the meter's local time, X = 'S'
 * for summer time (CEST, UTC+02:00) or 'W' for winter time (CET, UTC+01:00). DSMR 2.2/3.0 gas
 * readings (0-n:24.3.0) carry YYMMDDhhmmss without the DST flag: local time of unknown offset.
 *
 * Two-digit years follow the POSIX strptime pivot (69..99 -> 19xx, 00..68 -> 20xx): meters send
 * 700101010000W as an "unset" placeholder, which is the Unix epoch.
 */

const S = 0x53;
const W = 0x57;
const ZERO = 0x30;

function twoDigits(text: string, at: number): number {
  const high = text.charCodeAt(at) - ZERO;
  const low = text.charCodeAt(at + 1) - ZERO;
  if (high < 0 || high > 9 || low < 0 || low > 9) return -1;
  return high * 10 + low;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * ISO 8601 form of a DSMR timestamp ("2017-01-02T19:20:02+01:00"), or undefined when the text is
 * not one or names an impossible date (meters send 632525252525W for "no value").
 * `allowLocal` also accepts the 12-digit form without DST flag, returned without offset.
 */
export function dsmrTimestamp(raw: string, allowLocal = false): string | undefined {
  const flag = raw.length === 13 ? raw.charCodeAt(12) : 0;
  if (flag !== S && flag !== W && !(allowLocal && raw.length === 12)) return undefined;
  const yy = twoDigits(raw, 0);
  const month = twoDigits(raw, 2);
  const day = twoDigits(raw, 4);
  const hour = twoDigits(raw, 6);
  const minute = twoDigits(raw, 8);
  const second = twoDigits(raw, 10);
  if (yy < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59)
    return undefined;
  const century = yy >= 69 ? 19 : 20;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(century * 100 + yy, month)) return undefined;
  // One string from character codes: far cheaper than concatenating slices (hot path).
  const local = String.fromCharCode(
    ZERO + Math.floor(century / 10),
    ZERO + (century % 10),
    raw.charCodeAt(0),
    raw.charCodeAt(1),
    0x2d,
    raw.charCodeAt(2),
    raw.charCodeAt(3),
    0x2d,
    raw.charCodeAt(4),
    raw.charCodeAt(5),
    0x54,
    raw.charCodeAt(6),
    raw.charCodeAt(7),
    0x3a,
    raw.charCodeAt(8),
    raw.charCodeAt(9),
    0x3a,
    raw.charCodeAt(10),
    raw.charCodeAt(11),
  );
  if (flag === 0) return local;
  return local + (flag === S ? '+02:00' : '+01:00');
}

/** True for the 13-character YYMMDDhhmmssX shape (whether or not the date itself is valid). */
export function looksLikeDsmrTimestamp(raw: string): boolean {
  if (raw.length !== 13) return false;
  const flag = raw.charCodeAt(12);
  if (flag !== 0x53 && flag !== 0x57) return false;
  for (let i = 0; i < 12; i++) {
    const code = raw.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}
