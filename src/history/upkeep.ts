import { readdirSync, rmSync, statSync } from 'node:fs';
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
