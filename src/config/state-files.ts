import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { systemClock, type Clock } from '../clock.js';
import type { StateFileName } from './paths.js';

export const STATE_FILES: readonly StateFileName[] = [
  'settings',
  'wifi',
  'mqtt',
  'modbus',
  'meter',
  'actions',
  'secrets',
];

/**
 * The journal of a write that spans several state files (settings + secrets when protection and
 * password change together): written atomically before the files, removed after them, replayed at
 * start-up when a kill came in between. It holds secrets, hence mode 0600.
 */
const JOURNAL = 'transaction.json';

export interface StateFileProblem {
  file: StateFileName;
  movedTo: string;
  reason: string;
}

/**
 * The state directory (docs/architecture.md#durability): one JSON file per API section, secrets with mode
 * 0600, each replaced atomically and only when changed. A file that does not parse is moved aside as
 * `<name>.json.corrupt-<timestamp>` so start-up never blocks on it.
 */
export class StateDirectory {
  constructor(
    readonly dir: string,
    private readonly clock: Clock = systemClock,
  ) {}

  pathOf(file: StateFileName): string {
    return join(this.dir, `${file}.json`);
  }

  ensure(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o750 });
  }

  /** Reads a state file: its object, undefined when absent, or a problem when it is corrupt. */
  read(file: StateFileName): { data?: Record<string, unknown>; problem?: StateFileProblem } {
    const path = this.pathOf(file);
    if (!existsSync(path)) return {};
    let reason: string;
    try {
      const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
        return { data: data as Record<string, unknown> };
      }
      reason = 'not a JSON object';
    } catch (error) {
      reason = `not valid JSON (${(error as Error).message})`;
    }
    return { problem: this.moveAside(file, reason) };
  }

  moveAside(file: StateFileName, reason: string): StateFileProblem {
    const path = this.pathOf(file);
    const movedTo = `${path}.corrupt-${new Date(this.clock.now()).toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, movedTo);
    return { file, movedTo, reason };
  }

  /** Writes the file atomically when its content changed; returns whether it wrote. */
  write(file: StateFileName, data: Record<string, unknown>): boolean {
    this.ensure();
    const mode = file === 'secrets' ? 0o600 : 0o640;
    return writeFileAtomic(this.pathOf(file), `${JSON.stringify(data, null, 2)}\n`, mode);
  }

  /**
   * Writes several files as one unit: a kill at any moment leaves either all old or all new
   * contents once `recover()` has run at the next start. The journal's rename is the commit point.
   */
  writeAll(files: ReadonlyMap<StateFileName, Record<string, unknown>>): void {
    if (files.size <= 1) {
      for (const [file, data] of files) this.write(file, data);
      return;
    }
    this.ensure();
    const journal = join(this.dir, JOURNAL);
    writeFileAtomic(journal, `${JSON.stringify(Object.fromEntries(files))}\n`, 0o600);
    for (const [file, data] of files) this.write(file, data);
    unlinkSync(journal);
    this.syncDirectory();
  }

  /**
   * Start-up clean-up before any file is read: temp files of writes that a kill interrupted are
   * deleted (they may hold secret copies), and a committed multi-file write is completed. A
   * journal that does not parse cannot be a committed one (it is renamed into place whole), so it
   * is deleted: the files still hold the old contents. Returns what was done, for the log.
   */
  recover(): { removedTemp: string[]; replayed: StateFileName[] } {
    const removedTemp: string[] = [];
    const replayed: StateFileName[] = [];
    if (!existsSync(this.dir)) return { removedTemp, replayed };
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith('.tmp')) {
        unlinkSync(join(this.dir, name));
        removedTemp.push(name);
      }
    }
    const journal = join(this.dir, JOURNAL);
    if (existsSync(journal)) {
      const files = parseJournal(readFileSync(journal, 'utf8'));
      for (const [file, data] of files) {
        this.write(file, data);
        replayed.push(file);
      }
      unlinkSync(journal);
    }
    if (removedTemp.length > 0 || replayed.length > 0 || existsSync(journal)) this.syncDirectory();
    return { removedTemp, replayed };
  }

  private syncDirectory(): void {
    const fd = openSync(this.dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Restore (docs/architecture.md#durability): deletes every state file; returns the names deleted. */
  removeAll(): string[] {
    const removed: string[] = [];
    for (const file of STATE_FILES) {
      const path = this.pathOf(file);
      if (existsSync(path)) {
        unlinkSync(path);
        removed.push(`${file}.json`);
      }
    }
    const journal = join(this.dir, JOURNAL);
    if (existsSync(journal)) unlinkSync(journal);
    if (existsSync(this.dir)) {
      for (const name of readdirSync(this.dir)) {
        if (name.endsWith('.tmp')) unlinkSync(join(this.dir, name));
      }
    }
    return removed;
  }
}

function parseJournal(text: string): Map<StateFileName, Record<string, unknown>> {
  const files = new Map<StateFileName, Record<string, unknown>>();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return files;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return files;
  for (const [name, content] of Object.entries(data)) {
    const known = STATE_FILES.find((file) => file === name);
    if (known && typeof content === 'object' && content !== null && !Array.isArray(content))
      files.set(known, content as Record<string, unknown>);
  }
  return files;
}
