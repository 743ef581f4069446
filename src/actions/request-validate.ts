/**
 * The check of an action's requests (definition-validate.ts): HTTP requests and Modbus TCP writes,
 * every problem as an issue naming its field (`actions[0].requests[1].modbus.func`).
 */
import {
  DEFAULTS,
  HTTP_METHODS,
  LIMITS,
  MODBUS_FUNCS,
  VALUE_TYPES,
  type ConstValue,
  type ValueType,
} from './definition.js';
import { isSecretHeader } from './secret-headers.js';
import { payloadFor } from './value-encoding.js';
import {
  checkNumber,
  checkText,
  isObject,
  RESERVED_NAMES,
  type Issues,
  type Record_,
} from './validate-kit.js';

/** An HTTP request: URL, method, payload, headers (RFC 9110 names and values) and timeout. */
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
    // A URL that starts with a ${variable} (`${const.url}/on`) is checked when it runs.
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

/** A Modbus TCP write: target, function, address, value type and a value its function can encode. */
function checkModbus(
  issues: Issues,
  field: string,
  modbus: Record_,
  constants: Record<string, ConstValue>,
): void {
  issues.keys(field, modbus, ['host', 'port', 'unit_id', 'func', 'address', 'type', 'value', 'timeout']);
  // The device substitutes constants in modbus.host too; a host with ${variables} is checked when it runs.
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
  // A value with ${variables} is checked when it runs (it is only known then).
  if (!funcOk || !typeOk || modbus.value.includes('${')) return;
  const type = (modbus.type as ValueType | undefined) ?? DEFAULTS.type;
  const encoded = payloadFor(modbus.func as 5 | 6 | 15 | 16, modbus.value, type);
  if (!encoded.ok) issues.add(`${field}.value`, encoded.message, modbus.value);
}

/** One request of an action: exactly one of http, modbus. */
export function checkRequest(
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
