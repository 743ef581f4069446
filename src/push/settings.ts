import { FormatError, jsonValueFormat, registerFormats } from '../config/formats.js';

/**
 * services.push (docs/architecture.md#push): the targets the history's quarter hours are pushed
 * to, and their secrets (write-only, in the secrets file like the actions' secret headers).
 */

export const PUSH_KINDS = ['remote_write', 'influx_line', 'vm_import'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/**
 * What a target receives: the quarter hours of the extended 15-minute tier, the minutes of the
 * 1-minute tier (mean powers, its own cursor; the tier holds 48 h), and the live power of every
 * reading (power_1s: best effort, held in memory only, bounded, never from the history).
 */
export const PUSH_WHAT = ['quarters', 'minutes', 'power_1s'] as const;
export type PushWhat = (typeof PUSH_WHAT)[number];

export const MAX_TARGETS = 8;
export const MAX_EXTRA_LABELS = 8;
export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_BATCH_QUARTERS = 96;

export interface PushTargetSettings {
  id: string;
  enabled?: boolean;
  kind: PushKind;
  url: string;
  /** Basic auth user; its password is in the secrets. */
  username?: string;
  site?: string;
  extra_labels?: Record<string, string>;
  what?: PushWhat[];
  /** The receiver's retention: older samples are never sent (it would drop them silently). */
  retention_days?: number;
  /** Quarter hours per request (each with every meter's series). */
  batch_quarters?: number;
  tls?: { ca?: string; insecure?: boolean };
}

/** Secrets by target id. */
export type PushSecrets = Record<string, { bearer_token?: string; password?: string }>;

declare module '../config/formats.js' {
  interface FormatTypes {
    'push-targets': PushTargetSettings[];
    'push-secrets': PushSecrets;
  }
}

const ID = /^[a-z][a-z0-9_]{0,31}$/;
// Prometheus data model: label names [a-zA-Z_][a-zA-Z0-9_]*; names starting with __ are reserved.
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
/** Labels the push sets itself; extra labels may not replace them. */
export const OWN_LABELS = ['__name__', 'site', 'gateway', 'meter', 'role', 'tariff'] as const;
const NO_CONTROL = /^\P{Cc}*$/u;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length <= max && NO_CONTROL.test(value);
}

const KNOWN_KEYS = new Set([
  'id',
  'enabled',
  'kind',
  'url',
  'username',
  'site',
  'extra_labels',
  'what',
  'retention_days',
  'batch_quarters',
  'tls',
]);

/** Where one target breaks its shape (fields named from the list), never echoing a secret. */
function targetProblems(value: unknown, at: string): string[] {
  if (!isObject(value)) return [`${at}: must be an object {id, kind, url, ...}`];
  const problems: string[] = [];
  for (const key of Object.keys(value))
    if (!KNOWN_KEYS.has(key)) problems.push(`${at}.${key}: unknown field`);
  if (typeof value.id !== 'string' || !ID.test(value.id))
    problems.push(`${at}.id: must match ^[a-z][a-z0-9_]{0,31}$`);
  if (value.enabled !== undefined && typeof value.enabled !== 'boolean')
    problems.push(`${at}.enabled: must be a boolean`);
  if (!PUSH_KINDS.includes(value.kind as PushKind))
    problems.push(`${at}.kind: must be one of ${PUSH_KINDS.join(', ')}`);
  let url: URL | undefined;
  try {
    url = typeof value.url === 'string' && value.url.length <= 2048 ? new URL(value.url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
    problems.push(
      `${at}.url: must be an http:// or https:// URL of at most 2048 characters without credentials`,
    );
  if (value.username !== undefined && !text(value.username, 256))
    problems.push(`${at}.username: must be a string of at most 256 characters`);
  if (value.site !== undefined && !text(value.site, 64))
    problems.push(`${at}.site: must be a string of at most 64 characters`);
  if (value.extra_labels !== undefined) {
    const labels = value.extra_labels;
    if (!isObject(labels) || Object.keys(labels).length > MAX_EXTRA_LABELS)
      problems.push(`${at}.extra_labels: must be an object of at most ${MAX_EXTRA_LABELS} labels`);
    else
      for (const [name, label] of Object.entries(labels)) {
        if (
          !LABEL_NAME.test(name) ||
          name.startsWith('__') ||
          (OWN_LABELS as readonly string[]).includes(name)
        )
          problems.push(
            `${at}.extra_labels.${name}: a label name [a-zA-Z_][a-zA-Z0-9_]*, not reserved nor one of ${OWN_LABELS.join(', ')}`,
          );
        else if (!text(label, 128))
          problems.push(`${at}.extra_labels.${name}: must be a string of at most 128 characters`);
      }
  }
  if (
    value.what !== undefined &&
    (!Array.isArray(value.what) ||
      value.what.length === 0 ||
      value.what.some((w) => !PUSH_WHAT.includes(w as PushWhat)))
  )
    problems.push(`${at}.what: must be a non-empty list of ${PUSH_WHAT.join(', ')}`);
  const integer = (key: string, min: number, max: number) => {
    const n = value[key];
    if (n !== undefined && (!Number.isInteger(n) || (n as number) < min || (n as number) > max))
      problems.push(`${at}.${key}: must be an integer ${min}..${max}`);
  };
  integer('retention_days', 1, 36_500);
  integer('batch_quarters', 1, 960);
  if (value.tls !== undefined) {
    const tls = value.tls;
    if (!isObject(tls) || Object.keys(tls).some((key) => key !== 'ca' && key !== 'insecure'))
      problems.push(`${at}.tls: must be an object {ca, insecure}`);
    else {
      if (tls.ca !== undefined && (typeof tls.ca !== 'string' || tls.ca.length > 16_384))
        problems.push(`${at}.tls.ca: must be a PEM string of at most 16384 characters`);
      if (tls.insecure !== undefined && typeof tls.insecure !== 'boolean')
        problems.push(`${at}.tls.insecure: must be a boolean`);
    }
  }
  return problems;
}

export function targetListProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return ['must be a list of targets'];
  if (value.length > MAX_TARGETS) return [`at most ${MAX_TARGETS} targets`];
  const problems = value.flatMap((target, index) => targetProblems(target, `[${index}]`));
  const ids = value.map((target) => (isObject(target) ? target.id : undefined));
  ids.forEach((id, index) => {
    if (typeof id === 'string' && ids.indexOf(id) !== index)
      problems.push(`[${index}].id: "${id}" is used twice`);
  });
  return problems;
}

function secretsProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'must be an object {target id: {bearer_token, password}}';
  if (Object.keys(value).length > MAX_TARGETS * 4) return 'too many entries';
  for (const [id, entry] of Object.entries(value)) {
    if (!ID.test(id) || !isObject(entry))
      return `${id.slice(0, 32)}: must be {bearer_token, password} by target id`;
    for (const [key, secret] of Object.entries(entry)) {
      if (key !== 'bearer_token' && key !== 'password') return `${id}.${key}: unknown field`;
      // RFC 9110 §5.5: a header value has no CR, LF or NUL.
      if (typeof secret !== 'string' || secret.length > 4096 || /[\r\n\0]/.test(secret))
        return `${id}.${key}: must be a string of at most 4096 characters without CR, LF or NUL`;
    }
  }
  return undefined;
}

const TARGETS_FORMAT = jsonValueFormat('push-targets', {
  check(value) {
    const problems = targetListProblems(value);
    if (problems.length > 0) throw new FormatError('invalid-push-targets', problems.join('; '));
  },
  describe:
    'list of {id, kind (remote_write, influx_line, vm_import), url, username, site, extra_labels, what, retention_days, batch_quarters, tls}',
  jsonSchema: {
    type: 'array',
    maxItems: MAX_TARGETS,
    items: {
      type: 'object',
      required: ['id', 'kind', 'url'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: ID.source },
        enabled: { type: 'boolean' },
        kind: { type: 'string', enum: [...PUSH_KINDS] },
        url: { type: 'string', maxLength: 2048 },
        username: { type: 'string', maxLength: 256 },
        site: { type: 'string', maxLength: 64 },
        extra_labels: {
          type: 'object',
          maxProperties: MAX_EXTRA_LABELS,
          additionalProperties: { type: 'string', maxLength: 128 },
        },
        what: { type: 'array', minItems: 1, items: { type: 'string', enum: [...PUSH_WHAT] } },
        retention_days: { type: 'integer', minimum: 1, maximum: 36_500 },
        batch_quarters: { type: 'integer', minimum: 1, maximum: 960 },
        tls: {
          type: 'object',
          additionalProperties: false,
          properties: { ca: { type: 'string', maxLength: 16_384 }, insecure: { type: 'boolean' } },
        },
      },
    },
  },
});

const SECRETS_FORMAT = jsonValueFormat('push-secrets', {
  check(value) {
    const problem = secretsProblem(value);
    if (problem !== undefined) throw new FormatError('invalid-push-secrets', problem);
  },
  describe: 'secrets {target id: {bearer_token, password}}',
});

/** Registers the push formats of the config schema; the daemon calls it before the config loads. */
export function registerPushFormats(): void {
  registerFormats([TARGETS_FORMAT, SECRETS_FORMAT]);
}
