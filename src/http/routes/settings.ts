import { ClientRateLimit, type ClientRateOptions } from '../client-rate.js';
import { HttpError } from '../errors.js';
import type { AppContext } from '../../context.js';
import { ERROR_REF, IGNORED_DETAILS_SCHEMA, sectionSchema } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, JsonSchema, Router } from '../router.js';
import { getPath, LEAVES, setPath, type LeafInfo } from '../../config/paths.js';
import type { ValidationIssue } from '../../config/config-store.js';
import {
  bodyPaths,
  emptiedOnReplace,
  ignoredKeys,
  leafWrites,
  sectionOf,
  sectionView,
  writeSection,
  type WriteMode,
} from '../../config/settings-write.js';
import { throwUnlessApplied, withIgnored } from '../section-writes.js';

/**
 * /api/v1/settings: the system.* and services.* tree. GET omits the
 * write-only system.password. PUT merges a partial object; POST replaces the whole object: as on
 * the device, a boolean it leaves out becomes false and a text "", a number its default (zero is
 * outside every numeric range here), except system.password, which stays as it is unless the body
 * sets it (a client cannot send back a secret it never saw; "" clears it). Both answer with the
 * settings as GET shows them after the change, plus `details.ignored` naming body fields nothing
 * took. The device's cloud names (DEVICE_CLOUD_NAMES) are read and shown beside this project's. Writes are persisted and applied live
 * through the config store (listeners of its `change` event react, e.g. the Digest realm follows
 * system.host_name on the next request).
 */
export const SETTINGS_SECTION = sectionOf('', ['system', 'services', 'meters']);

/**
 * Settings of several meters (docs/architecture.md#several-meters) that the device does not have:
 * POST (replace) keeps them when omitted, as a device client never sends them, and GET shows them
 * only when they differ from their defaults, so the device's settings object stays as its clients
 * know it.
 */
const MULTI_METER_PATHS = [
  'meters',
  'services.modbus.units',
  'services.modbus_rtu.meter',
  // The consumer personalities (docs/architecture.md#shelly-pro-3em): not a setting of the device.
  'services.emulate.shelly.enable',
  'services.emulate.shelly.meter',
  'services.emulate.shelly.udp_port',
  'services.emulate.shelly.udp_ports',
  'services.emulate.homewizard.port',
  'services.emulate.shelly.smoothing.mode',
  'services.emulate.shelly.smoothing.seconds',
  'services.emulate.homewizard.smoothing.mode',
  'services.emulate.homewizard.smoothing.seconds',
];

/** Sections of the settings that only hold such settings, dropped from the view when left empty. */
const OWN_SECTIONS = [
  'services.emulate.shelly.smoothing',
  'services.emulate.homewizard.smoothing',
  'services.emulate.shelly',
  'services.emulate',
];

/**
 * Settings no device client knows, kept when a POST (replace) omits them: the meters' and the consumer
 * personalities' (docs/architecture.md#homewizard-personality), so a device client's replace does not
 * switch a personality off.
 */
const KEPT_ON_REPLACE = [
  ...MULTI_METER_PATHS,
  'services.emulate.homewizard.enable',
  'services.emulate.homewizard.meter',
];

function omittedOnReplace(ctx: AppContext): (leaf: LeafInfo) => unknown {
  return (leaf) =>
    KEPT_ON_REPLACE.includes(leaf.path)
      ? structuredClone(getPath(ctx.config.config, leaf.path))
      : emptiedOnReplace(leaf);
}

function withoutDefaults(view: Record<string, unknown>): void {
  for (const path of MULTI_METER_PATHS) {
    const keys = path.split('.');
    const parent = keys.length === 1 ? view : getPath(view, keys.slice(0, -1).join('.'));
    const leaf = LEAVES.get(path);
    if (leaf && JSON.stringify(getPath(view, path)) === JSON.stringify(leaf.default))
      delete (parent as Record<string, unknown>)[keys.at(-1)!];
  }
  for (const path of OWN_SECTIONS) {
    const keys = path.split('.');
    const parent = getPath(view, keys.slice(0, -1).join('.')) as Record<string, unknown> | undefined;
    const section = parent?.[keys.at(-1)!];
    if (parent && typeof section === 'object' && section !== null && Object.keys(section).length === 0)
      delete parent[keys.at(-1)!];
  }
}

/**
 * services.cloud.* as the device names them (its OpenAPI `Settings` schema) -> the keys of this
 * project's schema. Both names read and write the one stored setting.
 */
const DEVICE_CLOUD_NAMES: ReadonlyArray<[device: string, own: string]> = [
  ['services.cloud.what_watt', 'services.cloud.vendor'],
  ['services.cloud.mystrom', 'services.cloud.partner_a'],
  ['services.cloud.stromkonto', 'services.cloud.partner_b'],
];

function settingsView(config: unknown): Record<string, unknown> {
  const view = sectionView(SETTINGS_SECTION, config);
  for (const [device, own] of DEVICE_CLOUD_NAMES) setPath(view, device, getPath(view, own));
  withoutDefaults(view);
  return view;
}

/** The body with the device's cloud names moved onto this project's; both given and different: an issue. */
function ownNames(body: unknown): { body: unknown; issues: ValidationIssue[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, issues: [] };
  const copy = structuredClone(body) as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const [device, own] of DEVICE_CLOUD_NAMES) {
    const value = getPath(copy, device);
    if (value === undefined) continue;
    const ownValue = getPath(copy, own);
    if (ownValue !== undefined && ownValue !== value)
      issues.push({ field: device, message: `names the same setting as ${own} with another value`, value });
    else setPath(copy, own, value);
  }
  return { body: copy, issues };
}

/** The view schema with the device's cloud names and the write answer's `details`. */
function settingsViewSchema(): JsonSchema {
  const schema = sectionSchema(SETTINGS_SECTION, 'view');
  const properties = (node: JsonSchema) => node.properties as Record<string, JsonSchema>;
  const cloud = properties(properties(schema).services!).cloud!;
  for (const [device] of DEVICE_CLOUD_NAMES) {
    const name = device.split('.')[2]!;
    properties(cloud)[name] = { type: 'boolean' };
    (cloud.required as string[]).push(name);
  }
  // A contract reference inside a schema generated from the config: the OpenAPI writer resolves a
  // ContractRef wherever it sits (src/http/openapi.ts), so it stands in for the schema it names.
  properties(schema).details = IGNORED_DETAILS_SCHEMA as unknown as JsonSchema;
  for (const path of MULTI_METER_PATHS) {
    const keys = path.split('.');
    let node = schema;
    for (const key of keys.slice(0, -1)) node = properties(node)[key]!;
    node.required = (node.required as string[] | undefined)?.filter((name) => name !== keys.at(-1));
  }
  for (const path of OWN_SECTIONS) {
    const keys = path.split('.');
    let node = schema;
    for (const key of keys.slice(0, -1)) node = properties(node)[key]!;
    node.required = (node.required as string[] | undefined)?.filter((name) => name !== keys.at(-1));
  }
  return schema;
}

const KNOWN_FIELDS = new Set([
  ...bodyPaths(SETTINGS_SECTION),
  ...DEVICE_CLOUD_NAMES.map(([device]) => device),
]);

/**
 * Checks a settings write against the state of the device before it is applied (system.power_save
 * is refused while an Ethernet link is up); throws an HttpError to refuse.
 */
export type SettingsGuard = (changes: ReadonlyMap<string, unknown>) => Promise<void>;

/**
 * Writes of `meters` per client: 5 at once, then one per 2 s. A change of the meter list starts
 * and stops meter inputs and history recorders; a client sending hundreds a minute would keep the
 * daemon doing only that (docs/architecture.md#hostile-input).
 */
export const METERS_WRITE_RATE: ClientRateOptions = { burst: 5, refillMs: 2_000, maxClients: 1024 };

function metersRateRefusal(retryAfterMs: number): HttpError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  const { burst, refillMs } = METERS_WRITE_RATE;
  return new HttpError(
    429,
    'too_many_requests',
    `writes of meters are limited to ${burst} at once and one per ${refillMs / 1000} s per client; retry in ${seconds} s`,
    { limit: burst, refill_s: refillMs / 1000, retry_after: seconds },
    { 'Retry-After': String(seconds) },
  );
}

export function registerSettingsRoutes(router: Router, ctx: AppContext, guard?: SettingsGuard): void {
  const metersRate = new ClientRateLimit(ctx.now, METERS_WRITE_RATE);
  const write =
    (mode: WriteMode) => async (request: ApiRequest, response: Parameters<typeof sendJson>[0]) => {
      const renamed = ownNames(request.body);
      const { changes, issues } = leafWrites(SETTINGS_SECTION, renamed.body, mode, omittedOnReplace(ctx));
      // Only a valid write that changes the list costs: a refused or unchanged one starts nothing.
      const current = ctx.config.config;
      const changesMeters = [...changes].some(
        ([path, value]) =>
          (path === 'meters' || path.startsWith('meters.')) &&
          JSON.stringify(value) !== JSON.stringify(getPath(current, path)),
      );
      const client = request.raw.socket.remoteAddress ?? '';
      if (issues.length === 0 && changesMeters) {
        const verdict = metersRate.check(client);
        if (!verdict.ok) {
          ctx.refusals.add('meters_write_rate');
          throw metersRateRefusal(verdict.retryAfterMs);
        }
      }
      issues.push(...renamed.issues);
      if (guard && issues.length === 0) await guard(changes);
      await throwUnlessApplied(ctx, writeSection(ctx.config, changes, issues));
      if (changesMeters) metersRate.spend(client);
      const ignored = ignoredKeys(request.body, KNOWN_FIELDS);
      if (ignored.length > 0) ctx.logger.warn(`settings write: ignored unknown fields ${ignored.join(', ')}`);
      sendJson(response, 200, withIgnored(settingsView(ctx.config.config), ignored));
    };
  const view = settingsViewSchema();
  const request = sectionSchema(SETTINGS_SECTION, 'write');
  const responses = {
    200: { description: 'settings after the change (password omitted)', schema: view },
    202: {
      description: 'stored; the outputs named were still applying it after http.apply_timeout_ms',
      schema: contract('ApplyingAnswerSchema'),
    },
    400: {
      description: 'malformed JSON (bad_request) or invalid values (validation_failed, details.fields)',
      schema: ERROR_REF,
    },
    429: {
      description: 'too many writes of meters from this client (too_many_requests, Retry-After)',
      schema: ERROR_REF,
    },
    500: {
      description: 'stored, but an output failed to apply it (internal_error, details.failed names each)',
      schema: ERROR_REF,
    },
  };
  router.add(
    'GET',
    '/api/v1/settings',
    (_request, response) => sendJson(response, 200, settingsView(ctx.config.config)),
    {
      doc: {
        summary: 'Device settings (password omitted)',
        responses: { 200: { description: 'settings', schema: view } },
      },
    },
  );
  router.add('PUT', '/api/v1/settings', write('merge'), {
    body: 'json',
    doc: { summary: 'Change some settings (partial object)', request, responses },
  });
  router.add('POST', '/api/v1/settings', write('replace'), {
    body: 'json',
    doc: {
      summary: 'Replace the settings; omitted fields return to defaults, the password stays unless given',
      request,
      responses,
    },
  });
}
