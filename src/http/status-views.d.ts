/**
 * The JSON of the status, log, backup and serial-port endpoints that the web page reads: declared
 * once, imported (type-only) by the routes that answer and by the page in src/web/ui.
 */

export type LogLevelName = 'error' | 'warn' | 'info' | 'debug';

/** One line of GET /api/v1/log. */
export interface LogLineView {
  /** ISO 8601 UTC. */
  time: string;
  level: LogLevelName;
  component?: string;
  message: string;
  /** The entry's other fields, when it has any. */
  fields?: Record<string, unknown>;
}

/** GET /api/v1/log: the latest lines at `level` or more severe, oldest first. */
export interface LogView {
  level: LogLevelName;
  lines: LogLineView[];
  /** How many lines the daemon keeps in memory, and how many it logged since start. */
  capacity: number;
  total: number;
}

/** One address of a network interface (loopback left out). */
export interface AddressView {
  interface: string;
  address: string;
  family: 'IPv4' | 'IPv6';
}

/** `runtime` of GET /api/v1/system: the process beside the device's documented fields. */
export interface RuntimeView {
  version: string;
  node: string;
  /** Seconds since the process started. */
  uptime_s: number;
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number; external_bytes: number };
  addresses: AddressView[];
}

/** A service line of GET /api/v1/system `services`. */
export interface ServiceStatusView {
  state: string;
  error?: string;
  [key: string]: unknown;
}

/** The parts of GET /api/v1/system the page reads. */
export interface SystemView {
  device: {
    name: string;
    host_name: string;
    id: string;
    model: string;
    firmware: string;
    build: string;
    time_since_boot: number;
    license: { type: string };
  };
  meter: { status?: string; interface?: string };
  services: Record<string, ServiceStatusView>;
  counters: Record<string, number>;
  runtime: RuntimeView;
  /** `locked`: setting paths the Home Assistant add-on's options lock. */
  access: { protection: boolean; password_set: boolean; addon?: boolean; locked?: string[] };
}

/** GET /api/v1/backup, and the body POST /api/v1/backup restores from. */
export interface SettingsBackup {
  format: 'meter-gateway-settings';
  version: 1;
  /** ISO 8601 UTC. */
  created: string;
  /** Whether `settings` holds the passwords and keys (then the file must be kept private). */
  secrets_included: boolean;
  /** Every setting the API can write, as a nested object of config paths. */
  settings: Record<string, unknown>;
}

/** GET /api/v1/serial/ports: the serial devices present, stable names first. */
export interface SerialPortView {
  path: string;
  /** Where a /dev/serial/by-id link points. */
  target?: string;
  kind: 'by-id' | 'usb' | 'acm' | 'uart';
}
