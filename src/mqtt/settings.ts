import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { ValidationIssue } from '../config/config-store.js';
import { LEAVES } from '../config/paths.js';
import type { MqttSettings } from '../config/types.js';
import { parseBrokerUrl } from './connection-options.js';
import { topicNameProblem } from './topic-name.js';
import type { MqttSettingsView } from './settings-view.js';

/**
 * The /api/v1/mqtt/settings object (docs/architecture.md#mqtt-template): fields relative to `mqtt.` in
 * the configuration. GET shows password_len, client.key_len and client.key_password_len instead of
 * the secrets; like every property the object does not define, they are ignored on write, so a GET
 * body can be sent back. mqtt.discovery.* is daemon-only (docs/architecture.md#configuration) and not part of
 * this object.
 */
const FIELDS = [
  'enable',
  'url',
  'username',
  'password',
  'client_id',
  'skip_cn_check',
  'publish.topic',
  'publish.template',
  'publish.qos',
  'publish.retain',
  'broker.certificate',
  'client.certificate',
  'client.key',
  'client.key_password',
] as const;
type Field = (typeof FIELDS)[number];

const SECRETS = new Set<Field>(['password', 'client.key', 'client.key_password']);
/** The device: "Set any certificate/key/password field to null to delete it." */
const NULL_DELETES = new Set<Field>([...SECRETS, 'broker.certificate', 'client.certificate']);
/** Response-only fields of GET that a client may send back unchanged. */
const RESPONSE_ONLY = new Set([
  'password_len',
  'key_len',
  'key_password_len',
  'client.key_len',
  'client.key_password_len',
]);
const FIELD_SET = new Set<string>(FIELDS);
const SECTIONS = new Set(FIELDS.filter((field) => field.includes('.')).map((field) => field.split('.')[0]!));

export function mqttSettingsView(settings: MqttSettings): MqttSettingsView {
  return {
    enable: settings.enable,
    url: settings.url,
    username: settings.username,
    password_len: [...settings.password].length,
    client_id: settings.client_id,
    skip_cn_check: settings.skip_cn_check,
    publish: { ...settings.publish },
    broker: { certificate: settings.broker.certificate },
    client: {
      certificate: settings.client.certificate,
      key_len: [...settings.client.key].length,
      key_password_len: [...settings.client.key_password].length,
    },
    // The device returns the key's length at the top level (its MQTT client documentation).
    key_len: [...settings.client.key].length,
    key_password_len: [...settings.client.key_password].length,
  };
}

export type WriteMode = 'replace' | 'merge';
export type SettingsChanges =
  { ok: true; changes: Map<string, unknown>; ignored: string[] } | { ok: false; issues: ValidationIssue[] };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Known fields of the body (null on a secret or certificate: delete it, as ""); other properties
 * are not written, as on /api/v1/settings, and listed in `ignored` (response-only ones excepted).
 */
function collectFields(
  body: Record<string, unknown>,
  prefix: string,
  out: Map<Field, unknown>,
  issues: ValidationIssue[],
  ignored: string[],
): void {
  for (const [key, value] of Object.entries(body)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (FIELD_SET.has(path))
      out.set(path as Field, value === null && NULL_DELETES.has(path as Field) ? '' : value);
    else if (prefix !== '' || !SECTIONS.has(key)) {
      if (!RESPONSE_ONLY.has(path)) ignored.push(path);
    } else if (isPlainObject(value)) collectFields(value, key, out, issues, ignored);
    else issues.push({ field: path, message: 'must be a JSON object' });
  }
}

/**
 * The configuration changes (`mqtt.<field>` -> value) of a POST (replace: absent fields return to
 * their defaults, except secrets, which GET never shows and which stay unless sent) or a PUT
 * (merge), after the checks convict cannot make: the broker URL, the topic, and PEM material
 * parsed by node:crypto. Types and lengths are left to ConfigStore.apply (the schema).
 */
export function settingsChanges(body: unknown, mode: WriteMode, current: MqttSettings): SettingsChanges {
  if (!isPlainObject(body)) return { ok: false, issues: [{ field: '', message: 'must be a JSON object' }] };
  const given = new Map<Field, unknown>();
  const issues: ValidationIssue[] = [];
  const ignored: string[] = [];
  collectFields(body, '', given, issues, ignored);
  if (issues.length > 0) return { ok: false, issues };
  if (mode === 'replace') {
    for (const field of FIELDS) {
      if (!given.has(field) && !SECRETS.has(field)) given.set(field, LEAVES.get(`mqtt.${field}`)!.default);
    }
  }
  const effective = (field: Field): unknown =>
    given.has(field) ? given.get(field) : currentValue(current, field);
  issues.push(...urlIssues(effective('url'), effective('enable')));
  issues.push(...topicIssues(given.get('publish.topic')));
  issues.push(...pemIssues(given, effective));
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    changes: new Map([...given].map(([field, value]) => [`mqtt.${field}`, value])),
    ignored,
  };
}

function currentValue(settings: MqttSettings, field: Field): unknown {
  let node: unknown = settings;
  for (const key of field.split('.')) node = (node as Record<string, unknown>)[key];
  return node;
}

function urlIssues(url: unknown, enable: unknown): ValidationIssue[] {
  if (typeof url !== 'string') return [];
  if (url === '')
    return enable === true ? [{ field: 'url', message: 'is required when enable is true' }] : [];
  const parsed = parseBrokerUrl(url);
  // The value is not echoed: a rejected URL may carry user:password@.
  return parsed.ok ? [] : [{ field: 'url', message: parsed.reason }];
}

function topicIssues(topic: unknown): ValidationIssue[] {
  if (typeof topic !== 'string') return [];
  const problem = topicNameProblem(topic);
  return problem === undefined ? [] : [{ field: 'publish.topic', message: problem, value: topic }];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function certificateIssue(field: Field, pem: string): ValidationIssue | undefined {
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks)
    return {
      field,
      message: 'is not a PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)',
    };
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return { field, message: `is not a valid X.509 certificate: ${(error as Error).message}` };
    }
  }
  return undefined;
}

function keyIssue(pem: string, passphrase: string): { key?: KeyObject; issue?: ValidationIssue } {
  if (!pem.includes('-----BEGIN'))
    return { issue: { field: 'client.key', message: 'is not a PEM private key' } };
  // PKCS#8 "ENCRYPTED PRIVATE KEY" (RFC 5958 §3) or a legacy OpenSSL key with "Proc-Type: 4,ENCRYPTED".
  const encrypted =
    pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || pem.includes('Proc-Type: 4,ENCRYPTED');
  if (encrypted && passphrase === '') {
    return { issue: { field: 'client.key_password', message: 'is required: client.key is encrypted' } };
  }
  try {
    return {
      key: createPrivateKey({ key: pem, format: 'pem', ...(passphrase !== '' ? { passphrase } : {}) }),
    };
  } catch (error) {
    const message = (error as Error).message;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (encrypted || /passphrase|decrypt/i.test(message) || code === 'ERR_MISSING_PASSPHRASE') {
      return { issue: { field: 'client.key_password', message: `does not decrypt client.key: ${message}` } };
    }
    return { issue: { field: 'client.key', message: `is not a valid PEM private key: ${message}` } };
  }
}

function pemIssues(given: Map<Field, unknown>, effective: (field: Field) => unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of ['broker.certificate', 'client.certificate'] as const) {
    const value = given.get(field);
    if (typeof value !== 'string' || value === '') continue;
    const issue = certificateIssue(field, value);
    if (issue) issues.push(issue);
  }
  if (!['client.certificate', 'client.key', 'client.key_password'].some((field) => given.has(field as Field)))
    return issues;
  const certificate = effective('client.certificate');
  const key = effective('client.key');
  const passphrase = effective('client.key_password');
  if (typeof certificate !== 'string' || typeof key !== 'string' || typeof passphrase !== 'string')
    return issues;
  if ((certificate === '') !== (key === '')) {
    const missing = certificate === '' ? 'client.certificate' : 'client.key';
    return [...issues, { field: missing, message: 'client.certificate and client.key are needed together' }];
  }
  if (key === '' || issues.length > 0) return issues;
  const parsed = keyIssue(key, passphrase);
  if (parsed.issue) return [...issues, parsed.issue];
  let matches: boolean;
  try {
    matches = new X509Certificate(certificate).checkPrivateKey(parsed.key!);
  } catch (error) {
    return [
      ...issues,
      {
        field: 'client.certificate',
        message: `is not a valid X.509 certificate: ${(error as Error).message}`,
      },
    ];
  }
  if (!matches) issues.push({ field: 'client.key', message: 'does not belong to client.certificate' });
  return issues;
}
