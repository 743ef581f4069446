import type { ValidationIssue } from '../config/config-store.js';
import { LEAVES } from '../config/paths.js';
import type { MqttSettings } from '../config/types.js';
import type { MqttSettingsView } from '../contracts/settings.js';

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
 * (merge). Every check of the values (types and limits by the schema, the broker URL, the topic
 * and the PEM material by the MQTT rules, config-rules.ts) is ConfigStore.apply's, as for every writer.
 */
export function settingsChanges(body: unknown, mode: WriteMode): SettingsChanges {
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
  return {
    ok: true,
    changes: new Map([...given].map(([field, value]) => [`mqtt.${field}`, value])),
    ignored,
  };
}
