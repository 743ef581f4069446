import type { ActionStatusRecord } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import { formatNumber } from './format.js';
import { t, tOr } from './i18n/i18n.js';

/** A run's execution time (the device's `exe_time`, seconds to the millisecond) in the page's locale. */
export function seconds(value: number): string {
  return t('action_form.seconds', { seconds: formatNumber(value, 3) });
}

/**
 * A run's status code in words, by the server's code table (GET /api/v1/actions/choices): a named
 * code, an HTTP status (success in the table's `http_ok` range), or the bare number.
 */
export function describeCode(code: number, choices: ActionsChoices): { ok: boolean; text: string } {
  const named = choices.status_codes.find((entry) => entry.code === code);
  const codeText = t('action_form.code', { code });
  if (named) return { ok: named.ok, text: `${tOr(`action_code.${named.name}`, named.name)} (${codeText})` };
  const [low, high] = choices.http_ok;
  if (code >= 100 && code <= 599)
    return { ok: code >= low && code <= high, text: t('action_form.http_status', { code }) };
  return { ok: false, text: codeText };
}

/** "Success — HTTP status 200 in 0.012 s" for a finished run. */
export function describeRun(
  record: ActionStatusRecord,
  choices: ActionsChoices,
): { ok: boolean; text: string } {
  const { ok, text } = describeCode(record.code, choices);
  const outcome = t(ok ? 'action_form.success' : 'action_form.failed');
  const time = t('action_form.in_seconds', { seconds: formatNumber(record.exe_time, 3) });
  return { ok, text: `${outcome} — ${text} ${time}` };
}

/** Whether a status is still running, by the code table's `running` entry. */
export function isRunning(record: ActionStatusRecord | undefined, choices: ActionsChoices): boolean {
  const running = choices.status_codes.find((entry) => entry.name === 'running')?.code;
  return record !== undefined && record.code === running;
}
