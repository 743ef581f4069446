/**
 * The structural check of an actions definition (the OpenAPI `ActionsDefinition` plus the
 * gateway's triggers): every problem as an issue naming its field (`actions[0].requests[1].modbus.func`).
 * Cron expressions are checked by node-cron itself, loaded only when a definition has a schedule.
 * Requests are checked in request-validate.ts, value triggers in trigger-validate.ts.
 */
import { cronProblem } from '../config/cron.js';
import type { ValidationIssue } from '../config/validation.js';
import { LIMITS, type ConstValue } from './definition.js';
import { checkRequest } from './request-validate.js';
import { checkCheapest, checkWhen } from './trigger-validate.js';
import { checkNumber, Issues, isObject, RESERVED_NAMES } from './validate-kit.js';

export { MODBUS_HOST } from './request-validate.js';
export { quantityOf } from './trigger-validate.js';

function checkAction(
  issues: Issues,
  field: string,
  action: unknown,
  constants: Record<string, ConstValue>,
  seen: Set<string>,
): void {
  if (!isObject(action)) return issues.add(field, 'must be an object', action);
  issues.keys(field, action, ['id', 'enable', 'requests', 'schedule', 'when', 'cheapest', 'min_interval']);
  const { id } = action;
  if (typeof id !== 'string' || id === '' || id.length > LIMITS.idLength)
    issues.add(`${field}.id`, `must be a string of 1..${LIMITS.idLength} characters`, id);
  else if (!/^[A-Za-z0-9_.-]+$/.test(id))
    issues.add(`${field}.id`, 'may hold letters, digits, _ . - only', id);
  else if (RESERVED_NAMES.has(id)) issues.add(`${field}.id`, 'is a reserved name', id);
  else if (seen.has(id)) issues.add(`${field}.id`, 'is used by another action', id);
  else seen.add(id);
  if (action.enable !== undefined && typeof action.enable !== 'boolean')
    issues.add(`${field}.enable`, 'must be a boolean', action.enable);
  if (action.schedule !== undefined && (typeof action.schedule !== 'string' || action.schedule.trim() === ''))
    issues.add(`${field}.schedule`, 'must be a cron expression', action.schedule);
  else if (action.schedule !== undefined) {
    const problem = cronProblem(action.schedule as string);
    if (problem) issues.add(`${field}.schedule`, problem, action.schedule);
  }
  if (action.when !== undefined) checkWhen(issues, `${field}.when`, action.when);
  if (action.cheapest !== undefined) checkCheapest(issues, `${field}.cheapest`, action.cheapest);
  checkNumber(issues, `${field}.min_interval`, action.min_interval, 0, LIMITS.minIntervalSeconds);
  const { requests } = action;
  if (requests === undefined) return;
  if (!Array.isArray(requests)) return issues.add(`${field}.requests`, 'must be an array', requests);
  if (requests.length > LIMITS.requestsPerAction)
    issues.add(`${field}.requests`, `at most ${LIMITS.requestsPerAction} requests`);
  requests.forEach((request, index) =>
    checkRequest(issues, `${field}.requests[${index}]`, request, constants),
  );
}

function checkConstants(issues: Issues, constants: unknown): Record<string, ConstValue> {
  if (constants === undefined) return {};
  if (!isObject(constants)) {
    issues.add('const', 'must be an object', constants);
    return {};
  }
  for (const [name, value] of Object.entries(constants)) {
    if (!/^[A-Za-z0-9_]+$/.test(name) || name.length > LIMITS.constNameLength)
      issues.add(`const.${name}`, `name must be 1..${LIMITS.constNameLength} letters, digits or _`);
    else if (RESERVED_NAMES.has(name)) issues.add(`const.${name}`, 'is a reserved name');
    const kind = typeof value;
    if (value !== null && kind !== 'string' && kind !== 'number' && kind !== 'boolean')
      issues.add(`const.${name}`, 'must be a string, number or boolean', value);
  }
  return constants as Record<string, ConstValue>;
}

/** Every problem of `value` as an actions definition; empty when it is valid. */
export function definitionIssues(value: unknown): ValidationIssue[] {
  const issues = new Issues();
  if (!isObject(value)) {
    issues.add('', 'must be a JSON object {const, actions}', value);
    return issues.list;
  }
  issues.keys('', value, ['const', 'actions']);
  const constants = checkConstants(issues, value.const);
  const { actions } = value;
  if (actions !== undefined && !Array.isArray(actions)) issues.add('actions', 'must be an array', actions);
  else if (actions !== undefined) {
    if (actions.length > LIMITS.actions) issues.add('actions', `at most ${LIMITS.actions} actions`);
    const seen = new Set<string>();
    actions.forEach((action, index) => checkAction(issues, `actions[${index}]`, action, constants, seen));
    actions.forEach((action: unknown, index) => {
      const off = isObject(action) && isObject(action.cheapest) ? action.cheapest.off : undefined;
      if (typeof off === 'string' && !seen.has(off))
        issues.add(`actions[${index}].cheapest.off`, 'must be the id of an action of this definition', off);
    });
  }
  return issues.list.map((issue) => ({ ...issue, field: issue.field.replace(/^\./, '') }));
}
