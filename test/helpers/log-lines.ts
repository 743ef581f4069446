import { Logger, type LogEntry, type LogLevel } from '../../src/log.js';

/** A logger that keeps each entry as a line, as `format` renders it; tests search these lines. */
export function linesLogger(
  lines: string[],
  level: LogLevel = 'debug',
  format: (entry: LogEntry) => string = jsonLine,
): Logger {
  return Logger.create(level, [
    {
      write: (entry) => lines.push(format(entry)),
      close: async () => undefined,
    },
  ]);
}

/** `{"level":..., "message":..., ...fields}`: every part of an entry, for tests that look at fields. */
export function jsonLine(entry: LogEntry): string {
  return JSON.stringify({ level: entry.level, message: entry.message, ...entry.meta });
}

/** A logger that writes nothing. */
export function silentLogger(): Logger {
  return Logger.create('error', []);
}
