import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-file.js';
import { corruptPathOf } from '../config/state-file.js';
import { finite, type DayRecord } from './day-record.js';
import { localDayBounds } from './local-day.js';
import { QUARTER_MS } from './spot.js';

/**
 * The price store's day files (docs/architecture.md#prices): `<state>/prices/<YYYY-MM-DD>.json`,
 * one local day by column, written atomically; a file that is not one whole day of this version
 * is moved aside (docs/architecture.md#durability).
 */

const FILE_VERSION = 2;

/**
 * One day file: the slots by column (quarter i starts at `start` + i x 15 min), numbers or null.
 * Columns rather than an object per slot keep a year's start-up read small.
 */
export function writeDayFile(directory: string, record: DayRecord): void {
  mkdirSync(directory, { recursive: true });
  const column = (values: Float64Array) => Array.from(values, finite);
  const file = {
    version: FILE_VERSION,
    day: record.day,
    source: record.source,
    zone: record.zone,
    currency: record.currency,
    fetched_at: new Date(record.fetchedAt).toISOString(),
    start: new Date(record.start).toISOString(),
    quarters: record.spot.length,
    spot: column(record.spot),
    ...(record.total ? { total: column(record.total) } : {}),
    import: column(record.imports),
    export: column(record.exports),
  };
  writeFileAtomic(join(directory, `${record.day}.json`), `${JSON.stringify(file)}\n`);
}

export function removeDayFile(directory: string, day: string): void {
  try {
    unlinkSync(join(directory, `${day}.json`));
  } catch {
    // already gone
  }
}

/** A day file that could not be read, moved aside. */
export interface CorruptDayFile {
  path: string;
  movedTo: string;
  reason: string;
}

/** What reading the day files tells the store. */
export interface DayFileReader {
  /** Days before this one are no longer kept. */
  oldest: string;
  now: () => number;
  found(record: DayRecord): void;
  expired(day: string): void;
  corrupt(problem: CorruptDayFile): void;
}

/**
 * Reads the day files of `directory` in day order: a day before `oldest` is `expired`, each
 * readable day is `found`, a corrupt file is moved aside as `<file>.corrupt-<time>` and told to
 * `corrupt`. A missing folder holds no days.
 */
export function readDayFiles(directory: string, reader: DayFileReader): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const match = /^(\d{4}-\d\d-\d\d)\.json$/.exec(name);
    if (!match) continue;
    const day = match[1]!;
    if (day < reader.oldest) {
      reader.expired(day);
      continue;
    }
    const path = join(directory, name);
    try {
      reader.found(readDay(readFileSync(path, 'utf8'), day));
    } catch (error) {
      const movedTo = corruptPathOf(path, reader.now());
      try {
        renameSync(path, movedTo);
      } catch {
        // gone meanwhile or not movable: the day is fetched again all the same
      }
      reader.corrupt({ path, movedTo, reason: (error as Error).message });
    }
  }
}

/** One day file, checked: its slots are the local day's quarters in order, numbers or null. */
function readDay(text: string, day: string): DayRecord {
  if (text.length > 64 * 1024) throw new Error('larger than a day of quarters');
  const file = JSON.parse(text) as Record<string, unknown>;
  const bounds = localDayBounds(day);
  if (!bounds || file['day'] !== day || file['version'] !== FILE_VERSION)
    throw new Error('not a day file of this version');
  const count = Math.round((bounds.end - bounds.start) / QUARTER_MS);
  if (file['start'] !== new Date(bounds.start).toISOString() || file['quarters'] !== count)
    throw new Error(`not the ${count} quarters of the day`);
  // One buffer for the columns of a day: a year is about 1100 small arrays less.
  const buffer = new ArrayBuffer(count * 8 * (file['total'] === undefined ? 3 : 4));
  const column = (name: string, index: number): Float64Array => {
    const values = file[name];
    if (!Array.isArray(values) || values.length !== count) throw new Error(`${name}: not ${count} values`);
    const out = new Float64Array(buffer, index * count * 8, count);
    values.forEach((value: unknown, i) => {
      if (value !== null && (typeof value !== 'number' || !Number.isFinite(value)))
        throw new Error(`${name}[${i}] is not a number`);
      out[i] = value === null ? NaN : value;
    });
    return out;
  };
  const fetched = Date.parse(String(file['fetched_at']));
  const text_ = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    day,
    start: bounds.start,
    end: bounds.end,
    source: text_(file['source']),
    zone: text_(file['zone']),
    currency: text_(file['currency']),
    fetchedAt: Number.isFinite(fetched) ? fetched : 0,
    spot: column('spot', 0),
    imports: column('import', 1),
    exports: column('export', 2),
    total: file['total'] === undefined ? undefined : column('total', 3),
  };
}
