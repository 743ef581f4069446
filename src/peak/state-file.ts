import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-file.js';
import type { PeakPersisted } from './engine-types.js';

/**
 * The guard's state in `<state>/peak-guard.json` (docs/architecture.md#peak-guard): shed stages,
 * the window's counter at its start and the month peaks, written atomically (temp file, fsync,
 * rename) before any shed or restore call goes out, so a SIGKILL never leads to a second call.
 * The last reading inside the window is not kept: after a restart the counter at the window
 * start and the cumulative A+ give the running value back.
 *
 * A file is checked field by field when loaded (`problemOf`): one that is truncated, of another
 * version or missing a field is moved aside as `peak-guard.json.corrupt-<time>` and the guard
 * starts from empty, so a bad file never reaches the engine (where a missing field would throw
 * at the next tick) and never blocks the start.
 */

export interface PeakStateLoad {
  state?: PeakPersisted;
  /** Why the file was refused; absent when it was valid or missing. */
  rejected?: string;
  /** Where a refused file was moved to. */
  movedTo?: string;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
/** Bounds that keep a hostile file from growing the guard's memory. */
const MAX_ENTRIES = 64;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function optionalFinite(data: Record<string, unknown>, key: string): string | undefined {
  return data[key] === undefined || finite(data[key]) ? undefined : `${key} must be a number`;
}

function timesProblem(value: unknown, key: string): string | undefined {
  if (!isObject(value)) return `${key} must be an object`;
  const entries = Object.entries(value);
  if (entries.length > MAX_ENTRIES) return `${key} has too many entries`;
  const bad = entries.find(([, time]) => !finite(time));
  return bad ? `${key}.${bad[0]} must be a number` : undefined;
}

function windowPeakProblem(value: unknown, at: string): string | undefined {
  if (!isObject(value) || !finite(value.at) || !finite(value.kw)) return `${at} must be {at, kw}`;
  return undefined;
}

function monthsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'months must be a list';
  if (value.length > MAX_ENTRIES) return 'months has too many entries';
  for (const [index, month] of value.entries()) {
    const at = `months[${index}]`;
    if (!isObject(month) || typeof month.month !== 'string' || !MONTH.test(month.month))
      return `${at}.month must be YYYY-MM`;
    if (!Array.isArray(month.top) || month.top.length > MAX_ENTRIES) return `${at}.top must be a list`;
    for (const [slot, window] of month.top.entries()) {
      const problem = windowPeakProblem(window, `${at}.top[${slot}]`);
      if (problem) return problem;
    }
    if (month.meter !== undefined) {
      const problem = windowPeakProblem(month.meter, `${at}.meter`);
      if (problem) return problem;
    }
  }
  return undefined;
}

function shedProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'shed must be a list';
  if (value.length > MAX_ENTRIES) return 'shed has too many entries';
  for (const [index, shed] of value.entries()) {
    const at = `shed[${index}]`;
    if (!isObject(shed)) return `${at} must be an object`;
    if (typeof shed.id !== 'string' || shed.id === '') return `${at}.id must be a stage id`;
    if (!finite(shed.since)) return `${at}.since must be a number`;
    if (!finite(shed.beforeKw)) return `${at}.beforeKw must be a number`;
    if (typeof shed.checked !== 'boolean') return `${at}.checked must be a boolean`;
    if (shed.restore !== undefined && typeof shed.restore !== 'string')
      return `${at}.restore must be an action id`;
  }
  return undefined;
}

/** The first thing wrong with a parsed state file, or undefined when the engine can take it. */
export function problemOf(data: unknown): string | undefined {
  if (!isObject(data)) return 'not a JSON object';
  if (data.version !== 1) return `version ${JSON.stringify(data.version)} is not 1`;
  const tracker = data.tracker;
  if (tracker !== undefined) {
    if (!isObject(tracker)) return 'tracker must be an object';
    for (const key of ['windowStart', 'startKwh', 'lastAt', 'lastKwh'])
      if (!finite(tracker[key])) return `tracker.${key} must be a number`;
    if (tracker.partial !== undefined && typeof tracker.partial !== 'boolean')
      return 'tracker.partial must be a boolean';
  }
  const ineffective = data.ineffective;
  if (!Array.isArray(ineffective) || ineffective.some((id) => typeof id !== 'string'))
    return 'ineffective must be a list of stage ids';
  if (ineffective.length > MAX_ENTRIES) return 'ineffective has too many entries';
  const lastWindow = data.lastWindow;
  if (
    lastWindow !== undefined &&
    (!isObject(lastWindow) || ![lastWindow.start, lastWindow.end, lastWindow.kw].every(finite))
  )
    return 'lastWindow must be {start, end, kw}';
  return (
    shedProblem(data.shed) ??
    timesProblem(data.restoredAt, 'restoredAt') ??
    (data.shedAt === undefined ? undefined : timesProblem(data.shedAt, 'shedAt')) ??
    optionalFinite(data, 'lastStepAt') ??
    optionalFinite(data, 'ineffectiveWindow') ??
    optionalFinite(data, 'unavoidableWindow') ??
    monthsProblem(data.months)
  );
}

export class PeakStateFile {
  private written: string | undefined;

  constructor(
    private readonly dir: string,
    /** The time for a refused file's name, ms. */
    private readonly now: () => number = () => 0,
  ) {}

  get path(): string {
    return join(this.dir, 'peak-guard.json');
  }

  /** The stored state; a file that fails the check is moved aside (`.corrupt-<time>`). */
  load(): PeakStateLoad {
    if (!existsSync(this.path)) return {};
    let data: unknown;
    let problem: string | undefined;
    try {
      data = JSON.parse(readFileSync(this.path, 'utf8'));
      problem = problemOf(data);
    } catch (error) {
      problem = `not valid JSON (${(error as Error).message})`;
    }
    if (problem === undefined) {
      this.written = JSON.stringify(data);
      return { state: data as PeakPersisted };
    }
    const movedTo = `${this.path}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      renameSync(this.path, movedTo);
      return { rejected: problem, movedTo };
    } catch {
      return { rejected: problem };
    }
  }

  /** Writes the state when it differs from the last write. */
  save(state: PeakPersisted): void {
    const stored: PeakPersisted = state.tracker
      ? {
          ...state,
          tracker: {
            ...state.tracker,
            lastAt: state.tracker.windowStart,
            lastKwh: state.tracker.startKwh,
          },
        }
      : state;
    const text = JSON.stringify(stored);
    if (text === this.written) return;
    writeFileAtomic(this.path, `${text}\n`, 0o640);
    this.written = text;
  }
}
