import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICES_LOG_MAX_FILES } from '../log-transports.js';
import type { Logger } from '../log.js';

/**
 * Daily upkeep of the services.log files in the SD card folder (docs/architecture.md#housekeeping):
 * `meter-gateway.log` and its rotated copies `meter-gateway1.log` ... `meter-gateway4.log`.
 * - A rotated copy numbered past the kept five (`meter-gateway5.log` and up, left by an interrupted
 *   rotation) is deleted.
 * - While services.log is off, the files it left are deleted once nothing has been written to
 *   them for `OFF_LOG_KEEP_DAYS`: long enough to hand the log to someone after switching it off,
 *   not forever on an SD card.
 */
export const OFF_LOG_KEEP_DAYS = 30;

const LOG_FILE = /^meter-gateway(\d*)\.log$/;

function logFiles(directory: string): Array<{ name: string; number: number }> {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = LOG_FILE.exec(name);
    return match ? [{ name, number: Number(match[1] || 0) }] : [];
  });
}

/** Whether the folder holds log files the upkeep may remove (with services.log `on` or off). */
export function hasLogLeftovers(directory: string, on: boolean): boolean {
  return logFiles(directory).some(({ number }) => !on || number >= SERVICES_LOG_MAX_FILES);
}

/**
 * Deletes the log files the rules above remove. A file that cannot be checked or deleted is skipped
 * and reported; the others are still deleted. Returns the errors.
 */
export function removeLogLeftovers(directory: string, on: boolean, now: number, logger: Logger): Error[] {
  const errors: Error[] = [];
  for (const { name, number } of logFiles(directory)) {
    try {
      const beyondKept = number >= SERVICES_LOG_MAX_FILES;
      if (
        !beyondKept &&
        (on || statSync(join(directory, name)).mtimeMs >= now - OFF_LOG_KEEP_DAYS * 86_400_000)
      )
        continue;
      rmSync(join(directory, name), { recursive: true });
      logger.info(`deleted ${name} (${beyondKept ? 'past the five kept files' : 'services.log is off'})`);
    } catch (error) {
      logger.error(`cannot delete ${name}: ${(error as Error).message}`);
      errors.push(error as Error);
    }
  }
  return errors;
}
