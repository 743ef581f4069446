import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../config/atomic-file.js';
import { join } from 'node:path';
import type { Logger } from '../log.js';

/**
 * Daily upkeep of the history folder. The ring files themselves need none: they never grow, and a
 * tier's retention is its ring's capacity (the oldest bucket is overwritten). What does pile up
 * is what the store leaves beside them (docs/architecture.md#housekeeping):
 * - `<tier>.ring.corrupt-<ms>`: a damaged file (or a directory) moved aside at start, kept
 *   `MOVED_ASIDE_KEEP_DAYS` for inspection, then deleted: each is a full-size ring file;
 * - `<tier>.ring.tmp`: a ring file whose creation a crash cut short, deleted once it is an hour
 *   old (creation takes milliseconds, so an older one is never in progress).
 */
export const MOVED_ASIDE_KEEP_DAYS = 30;
const TEMPORARY_GRACE_MS = 3_600_000;

const MOVED_ASIDE = /^[0-9a-z]+\.ring\.corrupt-(\d+)$/;
const TEMPORARY = /^[0-9a-z]+\.ring\.tmp$/;

/** Names in `directory` the upkeep looks at; none when the folder does not exist. */
function leftovers(directory: string): string[] {
  try {
    return readdirSync(directory).filter((name) => MOVED_ASIDE.test(name) || TEMPORARY.test(name));
  } catch {
    return [];
  }
}

/** Whether the history folder holds anything the upkeep may remove. */
export function hasHistoryLeftovers(directory: string): boolean {
  return leftovers(directory).length > 0;
}

function expired(directory: string, name: string, now: number): boolean {
  const asideAt = MOVED_ASIDE.exec(name)?.[1];
  if (asideAt !== undefined) return Number(asideAt) < now - MOVED_ASIDE_KEEP_DAYS * 86_400_000;
  return statSync(join(directory, name)).mtimeMs < now - TEMPORARY_GRACE_MS;
}

/**
 * Deletes the expired leftovers in `directory`. A file that cannot be checked or deleted is
 * skipped and reported; the others are still deleted. Returns the errors.
 */
export function removeHistoryLeftovers(directory: string, now: number, logger: Logger): Error[] {
  const errors: Error[] = [];
  for (const name of leftovers(directory)) {
    try {
      if (!expired(directory, name, now)) continue;
      rmSync(join(directory, name), { recursive: true });
      logger.info(`deleted history/${name}`);
    } catch (error) {
      logger.error(`cannot delete history/${name}: ${(error as Error).message}`);
      errors.push(error as Error);
    }
  }
  return errors;
}

/**
 * The history folder of a meter that left `meters[]` (`<state>/history/meters/<id>/`) is kept
 * `history.keep_removed_days`, in case the meter comes back under the same id, then deleted
 * (docs/architecture.md#housekeeping). The first upkeep that finds the meter gone writes this file
 * into its folder with that time (ms); a meter listed again has the file removed and keeps its
 * history.
 */
export const REMOVED_MARKER = 'removed-at';
/** 2020-01-01T00:00:00Z: no marker is older. */
const EARLIEST_MARKER_MS = 1_577_836_800_000;

/** The folders of `metersDirectory` whose meter is not in `listed`; none when the folder does not exist. */
export function removedMeterFolders(metersDirectory: string, listed: ReadonlySet<string>): string[] {
  try {
    return readdirSync(metersDirectory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !listed.has(entry.name))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * When the folder's meter was first found removed; undefined when not marked, or marked unreadably
 * (an empty or torn marker after a power cut is no time: `Number('')` is 0, which would delete the
 * history at once). A time before 2020, when no gateway ran, is a torn one too. The folder is then
 * marked again from now.
 */
function removedSince(folder: string): number | undefined {
  try {
    const text = readFileSync(join(folder, REMOVED_MARKER), 'utf8').trim();
    const at = Number(text);
    return /^\d{1,15}$/.test(text) && at >= EARLIEST_MARKER_MS ? at : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Marks the folders of removed meters, deletes those marked at least `keepDays` ago, and unmarks
 * the folders of meters listed again. A folder that cannot be marked or deleted is skipped and
 * reported; the others are still handled. Returns the errors.
 */
export function upkeepRemovedMeters(
  metersDirectory: string,
  listed: ReadonlySet<string>,
  keepDays: number,
  now: number,
  logger: Logger,
): Error[] {
  const errors: Error[] = [];
  for (const id of listed) {
    const marker = join(metersDirectory, id, REMOVED_MARKER);
    try {
      if (existsSync(marker)) {
        rmSync(marker);
        logger.info(`meter ${id} is listed again: its history is kept`);
      }
    } catch (error) {
      errors.push(error as Error);
    }
  }
  for (const id of removedMeterFolders(metersDirectory, listed)) {
    const folder = join(metersDirectory, id);
    try {
      let since = removedSince(folder);
      if (since === undefined) {
        since = now;
        writeFileAtomic(join(folder, REMOVED_MARKER), String(now));
        logger.info(`meter ${id} is no longer listed: its history is kept ${keepDays} day(s), then deleted`);
      }
      if (now - since < keepDays * 86_400_000) continue;
      rmSync(folder, { recursive: true, force: true });
      logger.info(`deleted history/meters/${id} (meter removed ${keepDays} day(s) ago)`);
    } catch (error) {
      logger.error(`cannot clean up history/meters/${id}: ${(error as Error).message}`);
      errors.push(error as Error);
    }
  }
  return errors;
}
