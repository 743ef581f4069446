import type { ApplyResult, ValidationIssue } from '../config/config-store.js';
import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import { HttpError } from './errors.js';

/**
 * The HTTP ends of a settings write: the 400 naming every invalid field, the 500 when an output did
 * not take up a stored change, and the answer's `details.ignored`. Planning the write (which leaves
 * change, what POST resets) is config/settings-write.ts.
 */

/**
 * An issue as the answer shows it: the field, the rule, the rule's key and arguments where it has
 * them (docs/architecture.md#server-message-keys) and (unless secret) the value.
 */
function answerField(
  issue: ValidationIssue,
): Pick<ValidationIssue, 'field' | 'message' | 'key' | 'args' | 'value'> {
  const { field, message, key, args } = issue;
  const named = key === undefined ? { field, message } : { field, message, key, args: args ?? {} };
  return 'value' in issue ? { ...named, value: issue.value } : named;
}

/**
 * 400 validation_failed naming every violated field (details.fields: [{field, message, value}]);
 * 409 conflict (details.locked) when every field is locked by the add-on's options (docs/architecture.md#add-on-options).
 */
export function validationError(issues: readonly ValidationIssue[]): HttpError {
  if (issues.length > 0 && issues.every((issue) => issue.locked)) {
    const fields = issues.map((issue) => issue.field);
    return new HttpError(
      409,
      'conflict',
      `locked by the Home Assistant add-on's options: ${fields.join(', ')}`,
      { fields: issues.map(answerField), locked: fields },
    ).withKey('error.locked_by_addon', { fields: fields.join(', ') });
  }
  const fields = issues.map((issue) => issue.field).join(', ');
  return new HttpError(400, 'validation_failed', `invalid settings: ${fields}`, {
    fields: issues.map(answerField),
  }).withKey('error.invalid_settings', { fields });
}

/**
 * A write whose outputs were still applying it when the deadline passed: answered 202
 * `{state: "applying", outputs}` (docs/architecture.md#output-contract), never 200. Thrown like an
 * HttpError so every writer gets it; the dispatcher answers it with its view.
 */
export class StillApplying extends Error {
  constructor(readonly outputs: readonly string[]) {
    super(`settings saved, still being applied by: ${outputs.join(', ')}`);
    this.name = 'StillApplying';
  }

  /** The 202 body (contract ApplyingAnswerSchema). */
  view(): { state: 'applying'; outputs: string[] } {
    return { state: 'applying', outputs: [...this.outputs] };
  }
}

/**
 * Ends an API write: invalid values are a 400; a change that was stored but that an output failed
 * to take up is a 500 naming the outputs (docs/architecture.md#output-contract: reported as failed, never
 * passed off as applied). It waits until every output watching a changed path has reconciled, at
 * most `http.apply_timeout_ms` on the context's clock: past it the write answers 202 `applying`
 * naming the outputs still at work, whose service states then tell how it ended. The stored
 * settings stay consistent: every other output has the change.
 */
export async function throwUnlessApplied(
  ctx: Pick<AppContext, 'clock' | 'config'>,
  result: ApplyResult,
  invalid: (issues: ValidationIssue[]) => HttpError = validationError,
): Promise<void> {
  if (!result.ok) throw invalid(result.issues);
  let timer: Timer | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = ctx.clock.setTimeout(() => resolve('late'), ctx.config.config.http.apply_timeout_ms);
  });
  const outcome = await Promise.race([result.settled, deadline]);
  ctx.clock.clearTimeout(timer);
  if (outcome === 'late') {
    // The outcome still counts: failures are logged and shown by the runner, never unhandled.
    result.settled.catch(() => undefined);
    throw new StillApplying(result.pending());
  }
  const failed = outcome;
  if (failed.length === 0) return;
  const names = [...new Set(failed.map((failure) => failure.owner))].join(', ');
  throw new HttpError(500, 'internal_error', `settings saved, but not applied by: ${names}`, {
    saved: true,
    failed: failed.map((failure) => ({ output: failure.owner, message: failure.message })),
  });
}

/** The answer of a write: the view, plus `details.ignored` when the body had fields nothing took. */
export function withIgnored(
  view: Record<string, unknown>,
  ignored: readonly string[],
): Record<string, unknown> {
  return ignored.length === 0 ? view : { ...view, details: { ignored } };
}
