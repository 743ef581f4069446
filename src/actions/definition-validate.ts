import { cronProblem } from '../config/cron.js';
import type { ValidationIssue } from '../config/validation.js';
import { QUANTITIES, templateName, type Quantity } from '../reading/quantities.js';
import {
  DEFAULTS,
  HTTP_METHODS,
  LIMITS,
  MODBUS_FUNCS,
  VALUE_TYPES,
  type ActionsDefinition,
  type ConstValue,
  type ValueType,
} from './definition.js';
import { isSecretHeader } from './secret-headers.js';
import { payloadFor } from './value-encoding.js';
import { isDeclaredVariable, unknownVariables } from './variables.js';

/**
 * The structural check of an actions definition (the OpenAPI `ActionsDefinition` plus the
 * gateway's triggers): every problem as an issue naming its field (`actions[0].requests[1].modbus.func`).
 * Cron expressions are checked by node-cron itself, loaded only when a definition has a schedule.
 */

type Record_ = Record<string, unknown>;

/**
 * Names an id or key may not take (docs/architecture.md#actions): they are the special properties of
 * every JavaScript object, so a client library or script keeping actions in a plain object would
 * lose them. The gateway itself keys by Map or own properties only.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const isObject = (value: unknown): value is Record_ =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class Issues {
  readonly list: ValidationIssue[] = [];
  add(field: string, message: string, value?: unknown): void {
    this.list.push(value === undefined ? { field, message } : { field, message, value });
  }
  /** Checks a key against the allowed ones: unknown keys are refused (a typo must not pass silently). */
  keys(field: string, object: Record_, allowed: readonly string[]): void {
    for (const key of Object.keys(object))
      if (!allowed.includes(key))
        this.add(`${field}.${key}`, `unknown field; allowed: ${allowed.join(', ')}`);
  }
}

/** The quantity a `when.value` names: its live key (`P_Out`) or template name (`2_7_0`). */
export function quantityOf(name: string): Quantity | undefined {
  return QUANTITIES.find((quantity) => quantity.live === name || templateName(quantity.obis) === name);
}

function checkNumber(
  issues: Issues,
  field: string,
  value: unknown,
  min: number,
  max: number,
  integer = false,
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    issues.add(field, integer ? 'must be an integer' : 'must be a number', value);
  else if (value < min || value > max) issues.add(field, `must be ${min}..${max}`, value);
}

function checkText(
  issues: Issues,
  field: string,
  value: unknown,
  constants: Record<string, ConstValue>,
  echo = true,
): void {
  if (typeof value !== 'string') return issues.add(field, 'must be a string', echo ? value : undefined);
  const unknown = unknownVariables(value, constants);
  if (unknown.length > 0)
    issues.add(
      field,
      `unknown variable ${unknown.map((name) => `\${${name}}`).join(', ')}`,
      echo ? value : undefined,
    );
}

function checkHttp(
  issues: Issues,
  field: string,
  http: Record_,
  constants: Record<string, ConstValue>,
): void {
  issues.keys(field, http, [
    'url',
    'method',
    'payload',
    'headers',
    'timeout',
    'secret_headers',
    'secret_headers_len',
  ]);
  checkSecretNames(issues, `${field}.secret_headers`, http.secret_headers);
  if (typeof http.url !== 'string' || http.url === '')
    issues.add(`${field}.url`, 'must be a non-empty string', http.url);
  else {
    checkText(issues, `${field}.url`, http.url, constants);
    // A URL that starts with a placeholder (`${const.url}/on`) is checked when it runs.
    if (!http.url.startsWith('${') && !/^https?:\/\//i.test(http.url))
      issues.add(`${field}.url`, 'must be an http:// or https:// URL', http.url);
  }
  if (http.method !== undefined && !HTTP_METHODS.includes(http.method as never))
    issues.add(`${field}.method`, `must be one of ${HTTP_METHODS.join(', ')}`, http.method);
  if (http.payload !== undefined) checkText(issues, `${field}.payload`, http.payload, constants);
  checkNumber(issues, `${field}.timeout`, http.timeout, LIMITS.timeoutSeconds.min, LIMITS.timeoutSeconds.max);
  if (http.headers === undefined) return;
  if (!isObject(http.headers))
    return issues.add(`${field}.headers`, 'must be an object of strings', http.headers);
  const entries = Object.entries(http.headers);
  if (entries.length > LIMITS.headers) issues.add(`${field}.headers`, `at most ${LIMITS.headers} headers`);
  for (const [name, value] of entries) {
    const at = `${field}.headers.${name}`;
    // RFC 9110 §5.1: a field name is a token; §5.5: CR and LF never appear in a field value.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) issues.add(at, 'header name must be an RFC 9110 token');
    else if (RESERVED_NAMES.has(name)) issues.add(at, 'is a reserved name');
    // A secret header's value is never echoed in an error (secret-headers.ts).
    const shown = isSecretHeader(name, http) ? undefined : value;
    if (typeof value !== 'string') issues.add(at, 'must be a string', shown);
    else if (/[\r\n\0]/.test(value)) issues.add(at, 'must not contain CR, LF or NUL', shown);
    else checkText(issues, at, value, constants, shown !== undefined);
  }
}

/** A Modbus target host: a name or an IPv4 / IPv6 address. */
export const MODBUS_HOST = /^[A-Za-z0-9.:[\]-]{1,255}$/;

/** `secret_headers`: header names (RFC 9110 tokens); `secret_headers_len` is GET's and ignored. */
function checkSecretNames(issues: Issues, field: string, names: unknown): void {
  if (names === undefined) return;
  if (!Array.isArray(names) || names.length > LIMITS.headers)
    return issues.add(field, `must be an array of at most ${LIMITS.headers} header names`, names);
  names.forEach((name, index) => {
    if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || RESERVED_NAMES.has(name))
      issues.add(`${field}[${index}]`, 'must be a header name (an RFC 9110 token)', name);
  });
}

function checkModbus(
  issues: Issues,
  field: string,
  modbus: Record_,
  constants: Record<string, ConstValue>,
): void {
  issues.keys(field, modbus, ['host', 'port', 'unit_id', 'func', 'address', 'type', 'value', 'timeout']);
  // The device substitutes constants in modbus.host too; a host with placeholders is checked when it runs.
  if (typeof modbus.host === 'string' && modbus.host.includes('${'))
    checkText(issues, `${field}.host`, modbus.host, constants);
  else if (typeof modbus.host !== 'string' || !MODBUS_HOST.test(modbus.host))
    issues.add(`${field}.host`, 'must be a host name or IP address', modbus.host);
  checkNumber(issues, `${field}.port`, modbus.port, 1, 65535, true);
  checkNumber(issues, `${field}.unit_id`, modbus.unit_id, 0, 255, true);
  checkNumber(issues, `${field}.address`, modbus.address, 0, 65535, true);
  if (modbus.address === undefined) issues.add(`${field}.address`, 'is required');
  checkNumber(
    issues,
    `${field}.timeout`,
    modbus.timeout,
    LIMITS.timeoutSeconds.min,
    LIMITS.timeoutSeconds.max,
  );
  const funcOk = MODBUS_FUNCS.includes(modbus.func as never);
  if (!funcOk) issues.add(`${field}.func`, `must be one of ${MODBUS_FUNCS.join(', ')}`, modbus.func);
  const typeOk = modbus.type === undefined || VALUE_TYPES.includes(modbus.type as never);
  if (!typeOk) issues.add(`${field}.type`, `must be one of ${VALUE_TYPES.join(', ')}`, modbus.type);
  if (typeof modbus.value !== 'string') return issues.add(`${field}.value`, 'must be a string', modbus.value);
  checkText(issues, `${field}.value`, modbus.value, constants);
  // A value with placeholders is checked when it runs (it is only known then).
  if (!funcOk || !typeOk || modbus.value.includes('${')) return;
  const type = (modbus.type as ValueType | undefined) ?? DEFAULTS.type;
  const encoded = payloadFor(modbus.func as 5 | 6 | 15 | 16, modbus.value, type);
  if (!encoded.ok) issues.add(`${field}.value`, encoded.message, modbus.value);
}

function checkRequest(
  issues: Issues,
  field: string,
  request: unknown,
  constants: Record<string, ConstValue>,
): void {
  if (!isObject(request)) return issues.add(field, 'must be an object with http or modbus', request);
  issues.keys(field, request, ['http', 'modbus']);
  const kinds = ['http', 'modbus'].filter((kind) => request[kind] !== undefined);
  if (kinds.length !== 1) return issues.add(field, 'must have exactly one of http, modbus');
  const kind = kinds[0]!;
  if (!isObject(request[kind])) return issues.add(`${field}.${kind}`, 'must be an object', request[kind]);
  if (kind === 'http') checkHttp(issues, `${field}.http`, request.http as Record_, constants);
  else checkModbus(issues, `${field}.modbus`, request.modbus as Record_, constants);
}

function checkWhen(issues: Issues, field: string, when: unknown): void {
  if (!isObject(when)) return issues.add(field, 'must be an object {value, above|below, for}', when);
  issues.keys(field, when, ['value', 'above', 'below', 'for', 'meter']);
  if (
    when.meter !== undefined &&
    (typeof when.meter !== 'string' || !/^[a-z][a-z0-9_]{0,31}$/.test(when.meter))
  )
    issues.add(`${field}.meter`, 'must be a meter id: main or an id of meters', when.meter);
  if (typeof when.value !== 'string' || (!quantityOf(when.value) && !isDeclaredVariable(when.value)))
    issues.add(
      `${field}.value`,
      'must name a quantity (live key such as P_Out, template name such as 2_7_0, or peak.predicted_kw ...)',
      when.value,
    );
  if ((when.above === undefined) === (when.below === undefined))
    issues.add(field, 'must have exactly one of above, below');
  checkNumber(issues, `${field}.above`, when.above, -1e12, 1e12);
  checkNumber(issues, `${field}.below`, when.below, -1e12, 1e12);
  checkNumber(issues, `${field}.for`, when.for, 0, LIMITS.forSeconds);
}

const QUARTER_TIME = /^([01]\d|2[0-3]):(00|15|30|45)$/;

/** A `cheapest` trigger (docs/architecture.md#actions); `off` is checked against the ids later. */
function checkCheapest(issues: Issues, field: string, cheapest: unknown): void {
  if (!isObject(cheapest)) return issues.add(field, 'must be an object {quarters, window, ...}', cheapest);
  issues.keys(field, cheapest, [
    'quarters',
    'window',
    'contiguous',
    'inverse',
    'price_limit',
    'failsafe_start',
    'off',
  ]);
  if (cheapest.quarters === undefined) issues.add(`${field}.quarters`, 'is required');
  checkNumber(issues, `${field}.quarters`, cheapest.quarters, 1, 96, true);
  const window = cheapest.window;
  const parts = typeof window === 'string' ? window.split('-') : [];
  if (parts.length !== 2 || !parts.every((part) => QUARTER_TIME.test(part)) || parts[0] === parts[1])
    issues.add(`${field}.window`, 'must be "HH:MM-HH:MM" on quarter hours, start and end different', window);
  for (const flag of ['contiguous', 'inverse'] as const)
    if (cheapest[flag] !== undefined && typeof cheapest[flag] !== 'boolean')
      issues.add(`${field}.${flag}`, 'must be a boolean', cheapest[flag]);
  checkNumber(issues, `${field}.price_limit`, cheapest.price_limit, -1000, 1000);
  if (
    cheapest.failsafe_start !== undefined &&
    (typeof cheapest.failsafe_start !== 'string' || !QUARTER_TIME.test(cheapest.failsafe_start))
  )
    issues.add(`${field}.failsafe_start`, 'must be "HH:MM" on a quarter hour', cheapest.failsafe_start);
  if (cheapest.off !== undefined && typeof cheapest.off !== 'string')
    issues.add(`${field}.off`, 'must be an action id', cheapest.off);
}

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

/** The definition typed, once definitionIssues found nothing. */
export function asDefinition(value: unknown): ActionsDefinition {
  return value as ActionsDefinition;
}
