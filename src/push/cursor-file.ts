import { join } from 'node:path';
import { Type } from 'typebox';
import type { PUSH_STATES } from '../contracts/push.js';
import { VersionedStateFile } from '../config/state-file.js';
import type { Logger } from '../log.js';
import type { Refusals } from '../refusals.js';

/**
 * A push target's persisted cursor and counters (docs/architecture.md#push): the file
 * `<state>/push/<target id>.json`, and the status a target shows of them.
 */

export type PushState = (typeof PUSH_STATES)[number];

export interface PushCounts {
  /** Samples acknowledged by the receiver. */
  sent: number;
  /** Batches acknowledged. */
  batches: number;
  /** Attempts that failed and were retried (429, 5xx, no answer, redirect). */
  retried: number;
  /** Samples older than the receiver's retention, skipped, never claimed as sent. */
  dropped_too_old: number;
  /** Samples of batches the receiver refused with a 4xx (other than 401, 403, 404, 408, 429). */
  dropped_rejected: number;
}

export interface PushStatus {
  id: string;
  kind: string;
  state: PushState;
  /** Last acknowledged quarter start (Unix s), 0 before the first. */
  cursor: number;
  /** Quarters from the cursor up to the last complete one. */
  backlog_quarters: number;
  last_error: string | null;
  last_success: number | null;
  clock_skew_ms: number | null;
  counts: PushCounts;
}

export function emptyCounts(): PushCounts {
  return { sent: 0, batches: 0, retried: 0, dropped_too_old: 0, dropped_rejected: 0 };
}

/**
 * `<state>/push/<target id>.json`, held to this contract when loaded (docs/architecture.md#durability):
 * a file that fails it is moved aside and the target starts at the retention edge, as without one.
 */
export const CursorFileSchema = Type.Object({
  version: Type.Literal(1),
  cursor: Type.Integer(),
  /** Last acknowledged minute start (Unix s) of what: "minutes"; absent before the first. */
  minutes_cursor: Type.Optional(Type.Integer()),
  counts: Type.Object({
    sent: Type.Integer({ minimum: 0 }),
    batches: Type.Integer({ minimum: 0 }),
    retried: Type.Integer({ minimum: 0 }),
    dropped_too_old: Type.Integer({ minimum: 0 }),
    dropped_rejected: Type.Integer({ minimum: 0 }),
  }),
});

export type CursorFile = VersionedStateFile<typeof CursorFileSchema>;

/** The cursor file of target `id` in `directory`; a corrupt one is counted and logged when moved aside. */
export function openCursorFile(
  directory: string,
  id: string,
  now: () => number,
  refusals: Refusals,
  logger: Logger,
): CursorFile {
  return new VersionedStateFile(join(directory, `${id}.json`), CursorFileSchema, {
    now,
    onProblem: (problem) => {
      refusals.add('state_file_corrupt');
      logger.warn(
        `push ${id}: state file ${problem.path} was corrupt (${problem.reason}); moved to ${problem.movedTo}, starting at the retention edge`,
      );
    },
  });
}
