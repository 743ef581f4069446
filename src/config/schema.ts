import { DAEMON_SCHEMA } from './daemon-schema.js';
import { MQTT_SCHEMA } from './mqtt-schema.js';
import { ETH_SCHEMA, WIFI_SCHEMA } from './network-schema.js';
import { bool, int, num, owned, secret, text } from './schema-leaves.js';
import { SERVICES_SCHEMA } from './services-schema.js';

/**
 * The one convict schema: the settings API tree of the whatwatt Go API (docs/architecture.md#configuration) with its constraints and defaults, the Wi-Fi
 * station, MQTT, Modbus and meter sections the API writes, and the daemon-only keys. Admin files,
 * state files, environment overrides and API writes are all validated against it, and the config
 * type (types.ts) is inferred from it: a leaf's type follows from its `format` (and `values`).
 * This file assembles the sections; the larger ones live in *-schema.ts files beside it, built
 * from the leaves of schema-leaves.ts.
 * Formats named in these files that config/ does not define ('modbus-layout', 'modbus-profile',
 * 'modbus-power-direction', 'meter-source', 'actions-definition', 'actions-header-secrets', 'peak-stages', 'peak-steps', 'peak-months', 'push-targets', 'push-secrets') are registered by their owners at wiring time.
 */

// Letters, digits and inner hyphens (RFC 1123 §2.1), plus inner underscores: the device's own
// default is `whatwatt_XXXXXX`. Used as the Digest realm and the mDNS name (`<host_name>.local`;
// RFC 6762 §16 allows any UTF-8 label there, and the device announces the underscore form).
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9_-]*[A-Za-z0-9])?$/;

const SETTINGS_SCHEMA = {
  system: {
    name: text('meter-gateway', 31, 'Device name shown in the API and MQTT (spec: max length 31).'),
    host_name: text('meter-gateway', 31, 'Host name; also the HTTP Digest realm (spec: max length 31).', {
      pattern: HOST_NAME,
      patternText: 'a host name (letters, digits, inner hyphens or underscores)',
    }),
    protection: bool(false, 'Require HTTP Basic or Digest authentication on every endpoint.'),
    password: secret(31, 'HTTP password (write-only, spec: max length 31). User name is ignored.'),
    power_save: bool(false, 'Wi-Fi power saving through the Wi-Fi backend.'),
  },
  services: SERVICES_SCHEMA,
};

const MODBUS_SCHEMA = {
  layout: {
    doc: 'Custom register layout (array of register sets) or null for the default layout.',
    format: 'modbus-layout' as const,
    default: null,
    nullable: true as const,
  },
  nominal_frequency: int(
    50,
    0,
    60,
    'Grid frequency in Hz the meter profiles serve when the meter sends none (not measured; 0 = not served).',
  ),
};

/** Automation actions (docs/architecture.md#actions): the device's definition, stored whole. */
const ACTIONS_SCHEMA = {
  definition: {
    doc: 'Actions definition {const, actions} as POSTed to /api/v1/actions, or null for none.',
    format: 'actions-definition' as const,
    default: null,
    nullable: true as const,
  },
  header_secrets: {
    doc: "Values of the secret headers of the actions' HTTP requests, by action id, request index and header name (write-only; GET /api/v1/actions shows secret_headers_len).",
    format: 'actions-header-secrets' as const,
    default: {},
    sensitive: true,
    secret: true as const,
  },
};

const METER_SCHEMA = {
  source: owned(
    'meter-source',
    'simulator',
    'Meter source URI: simulator, serial:/dev/..., tcp://host:port, file:PATH, http://host/api/v1/live, modbus-rtu:/dev/...?unit=1&profile=sdm630, modbus-tcp://host:502?profile=sunspec, homewizard://host, shelly://host.',
    { maxLength: 1024 },
  ),
  conv_factor: num(1, 0, 1e6, 'User-defined conversion factor shown as report.conv_factor.'),
  // AES-128-GCM key of encrypted DSMR telegrams (DSMR 5.0.2 P1 companion standard, Luxembourg): 16 bytes.
  encryption_key: secret(64, 'AES-128-GCM key (32 hex digits) for encrypted DSMR telegrams (write-only).', {
    pattern: /^[0-9A-Fa-f]{32}$/,
    patternText: '32 hexadecimal digits (AES-128 key) or empty',
  }),
  timeout: int(10, 1, 3600, 'Seconds without a valid frame before the meter status is NO DATA.'),
  scalers: {
    doc: 'Custom meter scalers [{obis, scaler}] as POSTed to /api/v1/meter/scalers/custom (docs/architecture.md#meter-scalers).',
    format: 'meter-scalers' as const,
    default: [] as Array<{ obis: string; scaler: number }>,
  },
  simulator: {
    seed: int(1, 0, 2 ** 31 - 1, 'Seed of the simulator (same seed, same readings).'),
    interval: num(1, 0.05, 3600, 'Seconds between simulated telegrams.'),
  },
};

/** Further meters beside the primary (docs/architecture.md#several-meters); `meters-list` is the meter's format. */
const METERS_LEAF = {
  doc: 'Further meters: polled {id, name, role, source, timeout} and virtual {id, name, role, expression}; ids match ^[a-z][a-z0-9_]{0,31}$, "main" is the primary.',
  format: 'meters-list' as const,
  default: [] as unknown[],
};

export const SCHEMA = {
  system: SETTINGS_SCHEMA.system,
  services: SETTINGS_SCHEMA.services,
  wifi: WIFI_SCHEMA,
  eth: ETH_SCHEMA,
  mqtt: MQTT_SCHEMA,
  modbus: MODBUS_SCHEMA,
  meter: METER_SCHEMA,
  meters: METERS_LEAF,
  actions: ACTIONS_SCHEMA,
  ...DAEMON_SCHEMA,
};
