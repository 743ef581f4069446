import type { ActionDefinition, ConstValue } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import type { FieldIssue } from './fields.js';
import { t } from './i18n/i18n.js';

/** The checks' messages in the page's language. */
const C = {
  required: () => t('action_check.required'),
  number: () => t('action_check.number'),
  integer: () => t('action_check.integer'),
  url: () => t('action_check.url'),
  time: () => t('action_check.time'),
  idChars: () => t('action_check.id_chars'),
  idLength: (max: number) => t('action_check.id_length', { max }),
  range: (min: number, max: number) => t('action_check.range', { min, max }),
  constName: (max: number) => t('action_check.const_name', { max }),
  tooMany: (max: number) => t('action_check.too_many', { max }),
};

/**
 * The Actions form's own checks before it posts (with the limits the server sends, so the form and
 * the server agree), each message naming its field like the server names it
 * (`actions[2].requests[0].http.url`, `const.token`); DOM-free, tested in node.
 */

function numberIssue(value: unknown, min: number, max: number, integer = false): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return C.number();
  if (integer && !Number.isInteger(value)) return C.integer();
  return value < min || value > max ? C.range(min, max) : undefined;
}

function requestIssues(action: ActionDefinition, at: string, choices: ActionsChoices): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { min, max } = choices.limits.timeoutSeconds;
  (action.requests ?? []).forEach((request, j) => {
    const base = `${at}.requests[${j}]`;
    const timeout = request.http?.timeout ?? request.modbus?.timeout;
    const kind = request.http ? 'http' : 'modbus';
    const timeoutIssue = timeout === undefined ? undefined : numberIssue(timeout, min, max);
    if (timeoutIssue) issues.push({ field: `${base}.${kind}.timeout`, message: timeoutIssue });
    if (request.http) {
      const url = request.http.url.trim();
      if (url === '') issues.push({ field: `${base}.http.url`, message: C.required() });
      else if (!url.startsWith('${') && !/^https?:\/\//i.test(url))
        issues.push({ field: `${base}.http.url`, message: C.url() });
    }
    if (request.modbus && request.modbus.host.trim() === '')
      issues.push({ field: `${base}.modbus.host`, message: C.required() });
  });
  if ((action.requests ?? []).length > choices.limits.requestsPerAction)
    issues.push({ field: `${at}.requests`, message: C.tooMany(choices.limits.requestsPerAction) });
  return issues;
}

/** Problems of the action at `index` the form can see itself, named like the server names them. */
export function actionIssues(action: ActionDefinition, index: number, choices: ActionsChoices): FieldIssue[] {
  const at = `actions[${index}]`;
  const issues: FieldIssue[] = [];
  const { limits } = choices;
  if (action.id === '') issues.push({ field: `${at}.id`, message: C.required() });
  else if (action.id.length > limits.idLength)
    issues.push({ field: `${at}.id`, message: C.idLength(limits.idLength) });
  else if (!/^[A-Za-z0-9_.-]+$/.test(action.id)) issues.push({ field: `${at}.id`, message: C.idChars() });
  if (action.schedule === '') issues.push({ field: `${at}.schedule`, message: C.time() });
  const every = /^\*\/(.*?) \*/.exec(action.schedule ?? '');
  if (every) {
    const issue = numberIssue(every[1] === '' ? Number.NaN : Number(every[1]), 1, 59, true);
    if (issue) issues.push({ field: `${at}.schedule`, message: issue });
  }
  if (action.when) {
    const threshold = action.when.above ?? action.when.below;
    const kind = action.when.above !== undefined ? 'above' : 'below';
    if (typeof threshold !== 'number' || !Number.isFinite(threshold))
      issues.push({ field: `${at}.when.${kind}`, message: C.number() });
    const seconds = numberIssue(action.when.for, 0, limits.forSeconds);
    if (seconds) issues.push({ field: `${at}.when.for`, message: seconds });
  }
  if (action.min_interval !== undefined) {
    const issue = numberIssue(action.min_interval, 0, limits.minIntervalSeconds);
    if (issue) issues.push({ field: `${at}.min_interval`, message: issue });
  }
  return [...issues, ...requestIssues(action, at, choices)];
}

/** Problems of the constants rows: names, duplicates, numbers that are not. */
export function constantIssues(
  names: readonly string[],
  constants: Record<string, ConstValue>,
  choices: ActionsChoices,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const max = choices.limits.constNameLength;
  names.forEach((name, i) => {
    if (!/^[A-Za-z0-9_]+$/.test(name) || name.length > max)
      issues.push({ field: `const.${name}`, message: C.constName(max) });
    else if (names.indexOf(name) !== i)
      issues.push({ field: `const.${name}`, message: t('action_form.duplicate') });
  });
  for (const [name, value] of Object.entries(constants))
    if (typeof value === 'number' && !Number.isFinite(value))
      issues.push({ field: `const.${name}`, message: C.number() });
  return issues;
}
