import type { ActionStatusRecord } from '../../actions/actions-api.js';
import type { ActionsChoices } from '../page-contract.js';
import { ACTION_STRINGS } from './strings-actions.js';

const S = ACTION_STRINGS.run;

/**
 * A run's status code in words, by the server's code table (GET /api/v1/actions/choices): a named
 * code, an HTTP status (success in the table's `http_ok` range), or the bare number.
 */
export function describeCode(code: number, choices: ActionsChoices): { ok: boolean; text: string } {
  const named = choices.status_codes.find((entry) => entry.code === code);
  if (named) return { ok: named.ok, text: `${S.names[named.name] ?? named.name} (${S.code(code)})` };
  const [low, high] = choices.http_ok;
  if (code >= 100 && code <= 599) return { ok: code >= low && code <= high, text: S.http(code) };
  return { ok: false, text: S.code(code) };
}

/** "Success — HTTP status 200 in 0.012 s" for a finished run. */
export function describeRun(
  record: ActionStatusRecord,
  choices: ActionsChoices,
): { ok: boolean; text: string } {
  const { ok, text } = describeCode(record.code, choices);
  return { ok, text: `${ok ? S.ok : S.failed} — ${text} ${S.in(record.exe_time)}` };
}

/** Whether a status is still running, by the code table's `running` entry. */
export function isRunning(record: ActionStatusRecord | undefined, choices: ActionsChoices): boolean {
  const running = choices.status_codes.find((entry) => entry.name === 'running')?.code;
  return record !== undefined && record.code === running;
}
