import { readFileSync, renameSync, statSync } from 'node:fs';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { writeFileAtomic } from './atomic-file.js';

/**
 * One state file of a part of the daemon (docs/architecture.md#durability), validated against its
 * contract whenever it is loaded: a file that does not parse, is cut short, carries another
 * `version` or misses a field is moved aside as `<file>.corrupt-<time>` and the part starts from
 * empty, so a damaged file never stops a start. `onProblem` hears of it (the caller logs it and
 * counts it). Writes are atomic (./atomic-file.ts) and stamp the version.
 *
 * The contract is a TypeBox object schema whose `version` property is a literal: a file of
 * another version is not read as this one (a migration, when there is one, belongs to the caller
 * before the load).
 */
export interface StateFileProblem {
  path: string;
  movedTo: string;
  reason: string;
}

export interface StateFileOptions {
  now: () => number;
  onProblem?: (problem: StateFileProblem) => void;
  /** A file larger than this is not read: it is moved aside like an invalid one (default 8 MiB). */
  maxBytes?: number;
}

/** Far above any state file the daemon writes; a larger one is damage, not state. */
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/** Where a state file that failed its contract goes: next to it, with the time of the move. */
export function corruptPathOf(path: string, now: number): string {
  return `${path}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
}

export class VersionedStateFile<S extends TSchema> {
  constructor(
    readonly path: string,
    private readonly schema: S,
    private readonly options: StateFileOptions,
  ) {}

  /** The file's content when it meets its contract; undefined when absent or moved aside. */
  load(): Static<S> | undefined {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return undefined;
    }
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (size > maxBytes) {
      this.moveAside(`larger than ${maxBytes} bytes`);
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (error) {
      this.moveAside(`not valid JSON (${(error as Error).message})`);
      return undefined;
    }
    if (!Value.Check(this.schema, data)) {
      const reasons = Value.Errors(this.schema, data)
        .slice(0, 5)
        .map((error) => `${error.instancePath || '/'} ${error.message}`);
      this.moveAside(reasons.join('; '));
      return undefined;
    }
    return data as Static<S>;
  }

  /** Writes `data` atomically; returns whether the content changed. */
  save(data: Static<S>, mode = 0o640): boolean {
    return writeFileAtomic(this.path, `${JSON.stringify(data)}\n`, mode);
  }

  private moveAside(reason: string): void {
    const movedTo = corruptPathOf(this.path, this.options.now());
    try {
      renameSync(this.path, movedTo);
    } catch {
      // Gone meanwhile or not movable: the part starts from empty all the same.
    }
    this.options.onProblem?.({ path: this.path, movedTo, reason });
  }
}
