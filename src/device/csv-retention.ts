import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { localDateTime } from '../reading/time-format.js';

const CSV_DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.csv$/;

/**
 * Deletes the CSV day files in `directory` older than `keepDays` (by the local date in their name).
 * A file that cannot be deleted is skipped and reported; the others are still deleted. Returns the
 * errors (none when all went well or the directory does not exist).
 */
export function deleteExpiredCsvFiles(
  directory: string,
  keepDays: number,
  now: number,
  logger: Logger,
): Error[] {
  const oldest = localDateTime(new Date(now - keepDays * 86_400_000)).slice(0, 10);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const errors: Error[] = [];
  for (const name of names) {
    const match = CSV_DAY_FILE.exec(name);
    if (!match || match[1]! >= oldest) continue;
    try {
      unlinkSync(join(directory, name));
      logger.info(`deleted ${name} (older than ${keepDays} days)`);
    } catch (error) {
      logger.error(`cannot delete ${name}: ${(error as Error).message}`);
      errors.push(error as Error);
    }
  }
  return errors;
}
