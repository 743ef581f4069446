/**
 * services of the convict schema (assembled in schema.ts as part of the settings API tree): the
 * switches of the outputs with their settings. The larger sections live in files of their own:
 * costs, peak guard, export limiter, Modbus slaves and personalities.
 */
import { COSTS_SCHEMA } from './costs-schema.js';
import { EMULATE_SCHEMA } from './emulate-schema.js';
import { EXPORT_LIMITER_SCHEMA } from './export-limiter-schema.js';
import { MODBUS_RTU_SERVICE_SCHEMA, MODBUS_TCP_SERVICE_SCHEMA } from './modbus-slave-schema.js';
import { PEAK_GUARD_SCHEMA } from './peak-schema.js';
import { bool, int, text } from './schema-leaves.js';

export const SERVICES_SCHEMA = {
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
  modbus: MODBUS_TCP_SERVICE_SCHEMA,
  emulate: EMULATE_SCHEMA,
  modbus_rtu: MODBUS_RTU_SERVICE_SCHEMA,
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
};
