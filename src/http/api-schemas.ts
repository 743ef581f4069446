import { formatNamed, type Limits } from '../config/formats.js';
import type { LeafInfo } from '../config/paths.js';
import { METER_STATUSES } from '../reading/meter-state.js';
import type { JsonSchema } from './router.js';
import type { Section } from '../config/settings-write.js';
import { ETHERNET_INFO_SCHEMA, SD_CARD_SCHEMA } from './device-schemas.js';

/**
 * JSON Schemas of the core endpoints for GET /api/v1/openapi.json. Settings schemas are generated
 * from the config schema (the one source of the constraints), the rest follow the whatwatt Go API and
 * docs/architecture.md#decisions.
 */
const string: JsonSchema = { type: 'string' };
const number: JsonSchema = { type: 'number' };
const integer: JsonSchema = { type: 'integer' };

/** Reference to the error body schema in components (docs/architecture.md#errors). */
export const ERROR_REF: JsonSchema = { $ref: '#/components/schemas/Error' };

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error', 'message', 'details'],
  properties: { error: string, message: string, details: { type: 'object' } },
};

/** A config leaf as JSON Schema: its JSON type and the limits of the schema item (from its format). */
export function leafSchema(leaf: LeafInfo): JsonSchema {
  const out: JsonSchema = {
    description: leaf.doc,
    ...formatNamed(leaf.format)?.jsonSchema?.(leaf.schema as Limits),
  };
  if (leaf.secret) out.writeOnly = true;
  return out;
}

/**
 * Object schema of a settings section. 'view': what GET returns (every non-secret field
 * required, secrets absent). 'write': a request body (all optional, secrets write-only).
 */
export function sectionSchema(section: Section, kind: 'view' | 'write'): JsonSchema {
  // A view lists exactly the section's fields (a secret cannot slip in); a write body may carry
  // more (the whatwatt Go API allows additional properties; they are ignored).
  const closed = kind === 'view' ? { required: [], additionalProperties: false } : {};
  const root: JsonSchema = { type: 'object', properties: {}, ...structuredClone(closed) };
  for (const leaf of section.leaves) {
    if (kind === 'view' && leaf.secret) continue;
    const keys = (section.base === '' ? leaf.path : leaf.path.slice(section.base.length + 1)).split('.');
    let node = root;
    for (const key of keys.slice(0, -1)) {
      const properties = node.properties as Record<string, JsonSchema>;
      properties[key] ??= { type: 'object', properties: {}, ...structuredClone(closed) };
      if (kind === 'view') addRequired(node, key);
      node = properties[key];
    }
    const last = keys[keys.length - 1]!;
    (node.properties as Record<string, JsonSchema>)[last] = leafSchema(leaf);
    if (kind === 'view') addRequired(node, last);
  }
  return root;
}

/** `details.ignored` of a settings write's answer: body fields that no setting took. */
export const IGNORED_DETAILS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { ignored: { type: 'array', items: { type: 'string' } } },
};

function addRequired(node: JsonSchema, key: string): void {
  const required = (node.required ??= []) as string[];
  if (!required.includes(key)) required.push(key);
}

const stringOrNumber: JsonSchema = { type: ['string', 'number'] };

export const METER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'interface'],
  properties: {
    status: { type: 'string', enum: [...METER_STATUSES] },
    interface: {
      type: 'string',
      enum: ['P1', 'OPTICAL', 'TTL', 'RS485', 'TCP', 'FILE', 'SIMULATOR', 'REMOTE', 'VIRTUAL'],
    },
    protocol: { type: 'string', enum: ['DSMR', 'SML', 'IEC62056-21', 'MODBUS', 'VIRTUAL'] },
    protocol_version: string,
    id: string,
    model: string,
    logical_name: string,
    vendor: string,
    prefix: string,
  },
};

/** GET /api/v1/health, also /api/v1/system's `health` (not a field of the device). */
export const HEALTH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'failed'],
  properties: {
    status: { type: 'string', enum: ['ok', 'failing'] },
    failed: {
      type: 'array',
      items: {
        type: 'object',
        required: ['output', 'error'],
        properties: { output: string, error: string },
      },
    },
  },
};

export const SYSTEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['device', 'meter', 'wifi', 'ethernet', 'sd_card', 'services', 'counters'],
  properties: {
    device: {
      type: 'object',
      required: ['name', 'id', 'model', 'firmware', 'time_since_boot', 'license'],
      properties: {
        name: string,
        host_name: string,
        id: { type: 'string', pattern: '^[0-9A-F]{12}$' },
        model: string,
        firmware: string,
        build: string,
        upgrade_capable: { type: 'boolean' },
        date: string,
        time: string,
        boot_id: string,
        time_since_boot: number,
        last_reboot: { type: 'object', properties: { date: string, time: string } },
        license: {
          type: 'object',
          required: ['type', 'activation_date'],
          properties: {
            type: { type: 'string', enum: ['FREE', 'PLUS', 'PRO'] },
            activation_date: string,
          },
        },
      },
    },
    meter: {
      ...METER_SCHEMA,
      properties: {
        ...(METER_SCHEMA.properties as Record<string, JsonSchema>),
        manufacturer: string,
        type: string,
        report_interval: number,
        tariff: integer,
        date: string,
        time: string,
      },
    },
    wifi: {
      type: 'object',
      required: ['ssid', 'ip'],
      properties: { ssid: string, ip: string },
      additionalProperties: stringOrNumber,
    },
    ethernet: ETHERNET_INFO_SCHEMA,
    sd_card: SD_CARD_SCHEMA,
    services: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['state'],
        properties: {
          state: string,
          error: string,
          execution_status: { type: 'object', properties: { state: string } },
        },
      },
    },
    counters: { type: 'object', additionalProperties: integer },
    access: {
      type: 'object',
      description: 'password protection (not a field of the device)',
      required: ['protection', 'password_set', 'addon', 'locked'],
      properties: {
        protection: { type: 'boolean' },
        password_set: { type: 'boolean' },
        addon: { type: 'boolean', description: 'running as a Home Assistant add-on' },
        locked: {
          type: 'array',
          items: string,
          description: "setting paths locked by the add-on's options (writes changing them: 409)",
        },
      },
    },
    health: HEALTH_SCHEMA,
    runtime: {
      type: 'object',
      description: 'this process (not a field of the device)',
      required: ['version', 'uptime_s', 'memory', 'addresses'],
      properties: {
        version: string,
        node: string,
        uptime_s: integer,
        memory: { type: 'object', additionalProperties: integer },
        addresses: {
          type: 'array',
          items: {
            type: 'object',
            required: ['interface', 'address', 'family'],
            properties: { interface: string, address: string, family: { enum: ['IPv4', 'IPv6'] } },
          },
        },
      },
    },
  },
};

const numberMap: JsonSchema = { type: 'object', additionalProperties: number };

export const REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['report', 'meter', 'system'],
  properties: {
    report: {
      type: 'object',
      required: ['id'],
      properties: {
        id: integer,
        interval: number,
        tariff: integer,
        date_time: { type: 'string', format: 'date-time' },
        date_time_local: string,
        date_time_utc: string,
        instantaneous_power: { type: 'object' },
        voltage: numberMap,
        current: numberMap,
        energy: { type: 'object' },
        max_demand: { type: 'object' },
        power_factor: number,
        conv_factor: number,
        volume: {
          type: 'array',
          items: {
            type: 'object',
            required: ['bus'],
            properties: { bus: integer, meter_id: string, date_time: string, cumulative: number },
          },
        },
      },
    },
    meter: METER_SCHEMA,
    system: {
      type: 'object',
      required: ['id', 'date_time', 'date_time_local', 'date_time_utc', 'boot_id', 'time_since_boot'],
      properties: {
        id: string,
        date_time: string,
        date_time_local: string,
        date_time_utc: string,
        boot_id: string,
        time_since_boot: number,
      },
    },
  },
};

/** As the device's local-reading documentation shows it: [{"1_8_0":"6643.003"}, ...]. */
export const VARIABLES_SCHEMA: JsonSchema = {
  type: 'array',
  items: { type: 'object', minProperties: 1, maxProperties: 1, additionalProperties: string },
};

export const METER_SETTINGS_VIEW_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['source', 'source_password_len', 'conv_factor', 'key_len'],
  additionalProperties: false,
  properties: {
    source: string,
    source_password_len: integer,
    conv_factor: number,
    key_len: integer,
    details: IGNORED_DETAILS_SCHEMA,
  },
};
