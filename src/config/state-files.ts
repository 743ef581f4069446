import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import type { StateFileName } from './paths.js';

export const STATE_FILES: readonly StateFileName[] = [
  'settings',
  'wifi',
  'mqtt',
  'modbus',
  'meter',
  'secrets',
];

export interface StateFileProblem {
  file: StateFileName;
  movedTo: string;
  reason: string;
}

/**
 * The state directory (DESIGN §3): one JSON file per API section, secrets with mode 0600, each
 * replaced atomically and only when changed. A file that does not parse is moved aside as
 * `<name>.json.corrupt-<timestamp>` so start-up never blocks on it.
 */
export class StateDirectory {
  constructor(readonly dir: string) {}

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
    const movedTo = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, movedTo);
    return { file, movedTo, reason };
  }

  /** Writes the file atomically when its content changed; returns whether it wrote. */
  write(file: StateFileName, data: Record<string, unknown>): boolean {
    this.ensure();
    const mode = file === 'secrets' ? 0o600 : 0o640;
    return writeFileAtomic(this.pathOf(file), `${JSON.stringify(data, null, 2)}\n`, mode);
  }

  /** Restore (DESIGN §3): deletes every state file; returns the names deleted. */
  removeAll(): string[] {
    const removed: string[] = [];
    for (const file of STATE_FILES) {
      const path = this.pathOf(file);
      if (existsSync(path)) {
        unlinkSync(path);
        removed.push(`${file}.json`);
      }
    }
    if (existsSync(this.dir)) {
      for (const name of readdirSync(this.dir)) {
        if (name.endsWith('.tmp')) unlinkSync(join(this.dir, name));
      }
    }
    return removed;
  }
}
