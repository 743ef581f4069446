/**
 * The daemon-only keys of the convict schema (assembled in schema.ts;
 * docs/architecture.md#configuration): listen addresses, paths, license, log, health, history,
 * update, cloud endpoints, scripting, network interface, SD card folder, add-on and device
 * identity. They are never part of the settings API.
 */
import { INTERFACE_NAME_PATTERN, INTERFACE_NAME_RULE } from './interface-name.js';
import { DOTTED_QUAD } from './network-schema.js';
import { bool, int, oneOf, text } from './schema-leaves.js';

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
