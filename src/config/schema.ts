import { COSTS_SCHEMA } from './costs-schema.js';
import { PEAK_GUARD_SCHEMA } from './peak-schema.js';
import { EXPORT_LIMITER_SCHEMA } from './export-limiter-schema.js';
import { DEVICE_PATH_PATTERN, DEVICE_PATH_RULE } from '../serial/device-path.js';
import { INTERFACE_NAME_PATTERN, INTERFACE_NAME_RULE } from './interface-name.js';
import { int, num } from './schema-leaves.js';

/**
 * The one convict schema: the settings API tree of the whatwatt Go API (docs/architecture.md#configuration) with its constraints and defaults, the Wi-Fi
 * station, MQTT, Modbus and meter sections the API writes, and the daemon-only keys. Admin files,
 * state files, environment overrides and API writes are all validated against it, and the config
 * type (types.ts) is inferred from it: a leaf's type follows from its `format` (and `values`).
 * Formats named here that config/ does not define ('modbus-layout', 'modbus-profile',
 * 'modbus-power-direction', 'meter-source', 'actions-definition', 'actions-header-secrets', 'peak-stages', 'peak-steps', 'peak-months', 'push-targets', 'push-secrets') are registered by their owners at wiring time.
 */

const bool = (def: boolean, doc: string) => ({ doc, format: 'bool' as const, default: def });
const text = (
  def: string,
  maxLength: number | undefined,
  doc: string,
  extra: Record<string, unknown> = {},
) => ({
  doc,
  format: 'text' as const,
  default: def,
  ...(maxLength !== undefined ? { maxLength } : {}),
  ...extra,
});
const secret = (maxLength: number | undefined, doc: string, extra: Record<string, unknown> = {}) => ({
  ...text('', maxLength, doc, extra),
  sensitive: true,
  secret: true,
});
const oneOf = <const V extends readonly string[]>(def: V[number], values: V, doc: string) => ({
  doc,
  format: 'one-of' as const,
  default: def,
  values,
});
/** A leaf whose format a module outside config/ registers. */
const owned = <F extends string>(
  format: F,
  def: string,
  doc: string,
  extra: Record<string, unknown> = {},
) => ({
  doc,
  format,
  default: def,
  ...extra,
});

// Letters, digits and inner hyphens (RFC 1123 §2.1), plus inner underscores: the device's own
// default is `whatwatt_XXXXXX`. Used as the Digest realm and the mDNS name (`<host_name>.local`;
// RFC 6762 §16 allows any UTF-8 label there, and the device announces the underscore form).
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9_-]*[A-Za-z0-9])?$/;
const DOTTED_QUAD = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export const SETTINGS_SCHEMA = {
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
  services: {
    cloud: {
      vendor: bool(false, 'Push the report to cloud.vendor.url every report_interval.'),
      solar_manager: bool(false, 'Push the report to cloud.solar_manager.url every report_interval.'),
      partner_a: bool(false, 'Push the report to cloud.partner_a.url every report_interval.'),
      partner_b: bool(false, 'Push the report to cloud.partner_b.url every report_interval.'),
    },
    local: {
      solar_manager: bool(false, 'Push the report to cloud.local_solar_manager.url (local Solar Manager).'),
    },
    broadcast: bool(true, 'mDNS announcement of _http._tcp (and _modbus._tcp while Modbus runs).'),
    other_energy_provider: bool(false, 'Accepted and stored for compatibility; no effect.'),
    report_interval: int(30, 1, 3600, 'MQTT and cloud publishing period in seconds (1..3600).'),
    log: bool(false, 'Additional rotating log file in the SD card folder (sd_log.directory).'),
    meter_proxy: bool(false, 'Raw telegram TCP server on meter_proxy.port.'),
    costs: COSTS_SCHEMA,
    peak_guard: PEAK_GUARD_SCHEMA,
    // Fleet push of the history's quarter hours (docs/architecture.md#push); formats registered by src/push.
    push: {
      targets: {
        doc: 'Push targets [{id, kind: remote_write | influx_line | vm_import, url, username, site, extra_labels, what: ["quarters"], retention_days, batch_quarters, tls: {ca, insecure}}] (docs/guide/fleet-push.md).',
        format: 'push-targets' as const,
        default: [] as unknown[],
      },
      mqtt: {
        enable: bool(
          false,
          'Publish every quarter hour of every meter to <topic>/quarters/<meter> (QoS 1, from the history, re-sent after a reconnect) and a retained birth record to <topic>/birth on every connect.',
        ),
        topic: text(
          'meter-gateway/${sys.id}',
          256,
          'Base topic of the quarter records (${sys.id}: the system id).',
        ),
        site: text('', 64, 'Site name in the birth record.'),
      },
      secrets: {
        doc: 'Push target secrets {target id: {bearer_token, password}} (write-only).',
        format: 'push-secrets' as const,
        default: {},
        sensitive: true,
        secret: true as const,
      },
    },
    export_limiter: EXPORT_LIMITER_SCHEMA,
    sd: {
      enable: bool(false, 'CSV logging of readings in the SD card folder (sd_log.directory).'),
      frequency: int(15, 1, 1440, 'CSV logging period in seconds (1..1440).'),
    },
    modbus: {
      enable: bool(false, 'Modbus TCP slave on services.modbus.port.'),
      port: int(502, 1, 65535, 'Modbus TCP port (1..65535).'),
      profile: owned(
        'modbus-profile',
        'whatwatt',
        'Register map the TCP slave serves: whatwatt (the spec layout), sdm630, sdm120, sdm72, dtsu666, sunspec.',
      ),
      direction: owned(
        'modbus-power-direction',
        'import_positive',
        'Sign of power in the meter profiles: import_positive (grid draw +) or export_positive.',
      ),
      units: {
        doc: 'Unit id -> meter id the TCP slave serves, e.g. {"1": "main", "2": "pv"}; "*" names the meter of every other unit id. Default: every unit id reads main; in a map without "*" an unmapped unit id answers exception 0x0B.',
        format: 'modbus-unit-map' as const,
        default: { '*': 'main' } as Record<string, string>,
      },
    },
    emulate: {
      shelly: {
        enable: bool(
          false,
          'Shelly Pro 3EM personality: /shelly, /rpc over HTTP and WebSocket, UDP JSON-RPC, mDNS shellypro3em-<id>.',
        ),
        meter: owned(
          'meter-id',
          'main',
          'Meter the Shelly personality serves: main (the primary) or an id of meters.',
        ),
        udp_port: int(
          1010,
          0,
          65535,
          'UDP JSON-RPC port of the Shelly personality (Marstek batteries poll 1010); 0: no UDP.',
        ),
        udp_ports: text(
          '2220',
          64,
          'Further UDP JSON-RPC ports of the Shelly personality, comma-separated (B2500 firmware 226 and later poll 2220); empty: udp_port alone.',
          { pattern: /^(\d{1,5}(,\d{1,5}){0,7})?$/, patternText: 'up to 8 port numbers separated by commas' },
        ),
        smoothing: {
          mode: oneOf(
            'off',
            ['off', 'average', 'hold'],
            'Power smoothing of the Shelly personality: off, average (moving mean over seconds) or hold (each value held for seconds); energies are never smoothed.',
          ),
          seconds: int(
            5,
            1,
            300,
            'Window of the average or length of the hold of Shelly power smoothing, in seconds (1..300).',
          ),
        },
      },
      homewizard: {
        enable: bool(
          false,
          'HomeWizard P1 local API v1 (GET /api, /api/v1/data, /api/v1/telegram) and mDNS _hwenergy._tcp.',
        ),
        meter: owned(
          'meter-id',
          'main',
          'Meter the HomeWizard P1 personality serves: main or an id of meters.',
        ),
        port: int(
          0,
          0,
          65535,
          "Own HTTP port of the HomeWizard personality, open without a password, with the P1's /api/v1/system (Home Assistant needs it while system.protection is on); 0: only on the API's port.",
        ),
        smoothing: {
          mode: oneOf(
            'off',
            ['off', 'average', 'hold'],
            'Power smoothing of the HomeWizard personality: off, average (moving mean over seconds) or hold (each value held for seconds); energies are never smoothed.',
          ),
          seconds: int(
            5,
            1,
            300,
            'Window of the average or length of the hold of HomeWizard power smoothing, in seconds (1..300).',
          ),
        },
      },
    },
    modbus_rtu: {
      enable: bool(
        false,
        'Modbus RTU slave on the serial device services.modbus_rtu.device (RS485 adapter).',
      ),
      device: text('', 4096, 'Serial device of the RTU slave, e.g. /dev/ttyUSB0 or /dev/serial/by-id/...', {
        pattern: DEVICE_PATH_PATTERN,
        patternText: DEVICE_PATH_RULE,
      }),
      baud: int(9600, 1200, 115200, 'RTU baud rate (1200..115200; inverters expect 9600 mostly).'),
      parity: oneOf('none', ['none', 'even', 'odd'], 'RTU parity.'),
      stop_bits: int(1, 1, 2, 'RTU stop bits (1 or 2).'),
      unit_id: int(1, 1, 247, 'RTU unit id (slave address 1..247); requests for other ids are ignored.'),
      meter: owned(
        'meter-id',
        'main',
        'Meter the RTU slave emulates: main (the primary) or an id of meters.',
      ),
      profile: owned(
        'modbus-profile',
        'sdm630',
        'Register map the RTU slave serves: sdm630, sdm120, sdm72, dtsu666, sunspec or whatwatt.',
      ),
      direction: owned(
        'modbus-power-direction',
        'import_positive',
        'Sign of power in the meter profiles: import_positive (grid draw +) or export_positive.',
      ),
    },
    metrics: {
      enable: bool(true, 'Prometheus metrics at GET /metrics (text format, OpenMetrics on request).'),
      public: bool(
        false,
        'GET /metrics without authentication even while system.protection is on (trusted LAN).',
      ),
      process: bool(false, 'Add the Node.js process metrics (CPU, memory, event loop) to /metrics.'),
    },
    berry: {
      auto_run: bool(false, 'Run the user script (scripting.file) run_delay seconds after start.'),
      run_delay: int(300, 60, 86400, 'Delay before the user script starts, seconds (60..86400).'),
    },
  },
};

/**
 * The static IPv4 settings of a network interface, one declaration for the Wi-Fi station and
 * Ethernet (their rules: config/network-rules.ts). `which` names the interface in the docs.
 */
function staticAddresses(which: '' | 'Ethernet ') {
  const quad = (doc: string) =>
    text('', 15, doc, { pattern: DOTTED_QUAD, patternText: 'a dotted-quad IPv4 address' });
  return {
    static_ip: bool(false, `Use ip, netmask, gateway and dns instead of DHCP${which ? ' on Ethernet' : ''}.`),
    ip: quad(`Static ${which}IPv4 address (dotted quad).`),
    netmask: quad(`Static ${which}netmask (dotted quad, contiguous).`),
    gateway: quad(`Static ${which}gateway (dotted quad, another host of the subnet).`),
    dns: quad(`Static ${which}DNS server (dotted quad).`),
  };
}

export const WIFI_SCHEMA = {
  sta: {
    enable: bool(false, 'Wi-Fi station (client) enabled.'),
    name: text('', 32, 'SSID (max 32).'),
    password: secret(64, 'Wi-Fi password, 8..64 characters or empty for open networks (write-only).', {
      minLength: 8,
    }),
    ...staticAddresses(''),
    max_power: num(20, 0, 21, 'Maximum transmit power in dBm (0..21, steps of 0.5).', 0.5),
  },
};

/** The wired connection (GET/PUT/POST /api/v1/eth/settings), applied like the Wi-Fi station. */
export const ETH_SCHEMA = {
  enable: bool(true, 'Ethernet enabled (false: the wired interface is disconnected).'),
  ...staticAddresses('Ethernet '),
};

export const MQTT_SCHEMA = {
  enable: bool(false, 'MQTT client enabled.'),
  url: text('', 512, 'Broker URL, mqtt://host:port or mqtts://host:port.'),
  username: text('', 256, 'Broker user name.'),
  password: secret(256, 'Broker password (write-only; GET shows password_len).'),
  client_id: text('', 128, 'MQTT client id (empty: meter-gateway-<system id>).'),
  skip_cn_check: bool(false, 'Skip only the broker host name check (the CA chain is still verified).'),
  publish: {
    topic: text('meter-gateway/${sys.id}/report', 256, 'Topic of the template message.'),
    template: text(
      '{"P_In":${1_7_0},"P_Out":${2_7_0},"E_In":${1_8_0},"E_Out":${2_8_0},"Sys":{"Id":"${sys.id}"}}',
      8192,
      'Payload template with ${variable} placeholders (docs/architecture.md#mqtt-template).',
    ),
    qos: int(0, 0, 2, 'QoS of published messages (0..2).'),
    retain: bool(false, 'Retain flag of published messages.'),
  },
  broker: { certificate: text('', 8192, 'PEM CA certificate of the broker.') },
  client: {
    certificate: text('', 8192, 'PEM client certificate.'),
    key: secret(8192, 'PEM client private key (write-only).'),
    key_password: secret(256, 'Passphrase of the client key (write-only).'),
  },
  discovery: {
    enable: bool(true, 'Home Assistant MQTT discovery (also settable through /api/v1/mqtt/discovery).'),
    prefix: text('homeassistant', 128, 'Home Assistant discovery prefix (daemon-only key).'),
    configuration_url: text(
      '',
      2048,
      'Device link in Home Assistant (daemon-only key; the add-on sets its ingress panel); empty: http://<address>:<http.port>/.',
    ),
    state_interval: int(
      10,
      0,
      3600,
      "Seconds between Home Assistant state messages (10, as HA's own DSMR integration; 0: every reading; also settable through /api/v1/mqtt/discovery).",
    ),
  },
};

export const MODBUS_SCHEMA = {
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
export const ACTIONS_SCHEMA = {
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

export const METER_SCHEMA = {
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
export const METERS_LEAF = {
  doc: 'Further meters: polled {id, name, role, source, timeout} and virtual {id, name, role, expression}; ids match ^[a-z][a-z0-9_]{0,31}$, "main" is the primary.',
  format: 'meters-list' as const,
  default: [] as unknown[],
};

/** Daemon-only keys (docs/architecture.md#configuration): never part of the settings API. */
export const DAEMON_SCHEMA = {
  http: {
    host: text('0.0.0.0', 255, 'Listen address of the HTTP API.'),
    port: int(8080, 0, 65535, 'Listen port of the HTTP API (0 = any free port).'),
    live_max_clients: int(32, 1, 10000, 'Concurrent /api/v1/live clients before 503.'),
    apply_timeout_ms: int(
      5000,
      100,
      600000,
      'How long a settings write waits for the outputs to apply the change (ms); past it the write answers 202 applying.',
    ),
    allowed_hosts: text(
      '',
      1024,
      'Further names (host or host:port, comma-separated) under which browsers may use the web interface and API, e.g. a container host or reverse proxy name.',
      {
        pattern: /^(|[A-Za-z0-9._:[\]-]+( *, *[A-Za-z0-9._:[\]-]+)*)$/,
        patternText: 'host names or addresses, each optionally with :port, separated by commas',
      },
    ),
  },
  paths: {
    state: text('state', 4096, 'State directory (API-written settings, secrets, logs).'),
    devices: text(
      '/dev',
      4096,
      'Device directory the serial port list scans (serial/by-id links, ttyUSB*, ttyACM*, ttyAMA0, serial0).',
    ),
  },
  license: {
    type: oneOf(
      'PRO',
      ['FREE', 'PLUS', 'PRO'],
      'License level: FREE hides /api/v1/report and stops MQTT, Modbus, proxy, scripting.',
    ),
    activation_date: text(
      '',
      20,
      'License activation date (ISO 8601 UTC, e.g. 2025-09-24T11:05:41Z) shown as device.license.activation_date.',
      { pattern: /^(|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/, patternText: 'empty or YYYY-MM-DDTHH:MM:SSZ' },
    ),
  },
  log: { level: oneOf('info', ['error', 'warn', 'info', 'debug'], 'Log level.') },
  health: {
    max_reading_age_s: int(
      300,
      0,
      86400,
      'Seconds without a valid meter reading before GET /api/v1/health answers 503 failing (the container turns unhealthy); 0: never. Before that, a stale reading is degraded.',
    ),
  },
  history: {
    keep_removed_days: int(
      30,
      0,
      3650,
      'Days the history folder of a meter removed from meters[] is kept (in case it comes back) before the daily housekeeping deletes it; 0: at the next housekeeping.',
    ),
  },
  meter_proxy: { port: int(2000, 0, 65535, 'TCP port of the raw telegram proxy.') },
  modbus_tcp: {
    host: text(
      '',
      255,
      'Listen address of the Modbus TCP slave (e.g. the LAN address); empty: every interface.',
    ),
  },
  update: {
    public_key: text('', 4096, 'Ed25519 public key (PEM) that release bundles must be signed with.'),
    max_bytes: int(64 * 1024 * 1024, 1024, 2 ** 31 - 1, 'Largest accepted firmware upload in bytes.'),
  },
  cloud: {
    vendor: { url: text('', 2048, 'Endpoint for services.cloud.vendor.') },
    solar_manager: { url: text('', 2048, 'Endpoint for services.cloud.solar_manager.') },
    partner_a: { url: text('', 2048, 'Endpoint for services.cloud.partner_a.') },
    partner_b: { url: text('', 2048, 'Endpoint for services.cloud.partner_b.') },
    local_solar_manager: { url: text('', 2048, 'Endpoint for services.local.solar_manager.') },
  },
  scripting: { file: text('', 4096, 'User script run by services.berry (a Node module).') },
  network: {
    ethernet_interface: text(
      'eth0',
      15,
      'Wired interface that /api/v1/eth/settings configures (NetworkManager).',
      {
        pattern: INTERFACE_NAME_PATTERN,
        patternText: INTERFACE_NAME_RULE,
      },
    ),
  },
  sd_log: {
    directory: text(
      '',
      4096,
      'SD card folder: the CSV logs (services.sd) and the log file (services.log), served at /sdcard; empty: <state>/sd.',
    ),
    retention_days: int(31, 1, 3650, 'Days of CSV files kept by services.sd (older ones are deleted).'),
  },
  // Home Assistant add-on (docs/architecture.md#add-on-options); the add-on's start writes these.
  addon: {
    enable: bool(
      false,
      'Running as a Home Assistant add-on: requests from addon.ingress_proxy with X-Ingress-Path are signed in by Home Assistant.',
    ),
    locked: text(
      '',
      4096,
      'Comma-separated setting paths the add-on options set: the settings API refuses to change them.',
      {
        pattern: /^([a-z0-9_.]+(,[a-z0-9_.]+)*)?$/,
        patternText: 'empty or setting paths separated by commas',
      },
    ),
    ingress_proxy: text(
      '172.30.32.2',
      15,
      "Source address of the Supervisor's ingress proxy (its fixed address on the add-on network); only tests change it.",
      { pattern: DOTTED_QUAD, patternText: 'an IPv4 address' },
    ),
  },
  device: {
    id: text(
      '',
      12,
      'System id (12 upper-case hex digits); empty: generated once and kept in <state>/system-id.',
      { pattern: /^([0-9A-F]{12})?$/, patternText: 'empty or 12 upper-case hexadecimal digits' },
    ),
    model: text('meter-gateway', 64, 'Model string reported as device.model.'),
    restart_command: text(
      '',
      4096,
      'Host command for reboot; empty: exit and let systemd restart the daemon.',
    ),
  },
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
