import type { ProfileName } from '../modbus/profiles/catalogue.js';
import type { PowerDirection } from '../modbus/profiles/grid-values.js';
/** Typed view of the effective configuration (mirrors schema.ts; keep both in step). */
export interface SystemSettings {
  name: string;
  host_name: string;
  protection: boolean;
  password: string;
  power_save: boolean;
}

export interface ServiceSettings {
  cloud: { vendor: boolean; solar_manager: boolean; partner_a: boolean; partner_b: boolean };
  local: { solar_manager: boolean };
  broadcast: boolean;
  other_energy_provider: boolean;
  report_interval: number;
  log: boolean;
  meter_proxy: boolean;
  sd: { enable: boolean; frequency: number };
  modbus: { enable: boolean; port: number; profile: ProfileName; direction: PowerDirection };
  modbus_rtu: {
    enable: boolean;
    device: string;
    baud: number;
    parity: 'none' | 'even' | 'odd';
    stop_bits: number;
    unit_id: number;
    profile: ProfileName;
    direction: PowerDirection;
  };
  berry: { auto_run: boolean; run_delay: number };
}

export interface WifiStationSettings {
  enable: boolean;
  name: string;
  password: string;
  static_ip: boolean;
  ip: string;
  netmask: string;
  gateway: string;
  dns: string;
  max_power: number;
}

export interface MqttSettings {
  enable: boolean;
  url: string;
  username: string;
  password: string;
  client_id: string;
  skip_cn_check: boolean;
  publish: { topic: string; template: string; qos: number; retain: boolean };
  broker: { certificate: string };
  client: { certificate: string; key: string; key_password: string };
  discovery: { enable: boolean; prefix: string; state_interval: number };
}

export interface MeterSettings {
  source: string;
  conv_factor: number;
  encryption_key: string;
  timeout: number;
  simulator: { seed: number; interval: number };
}

export type LicenseType = 'FREE' | 'PLUS' | 'PRO';

export interface AppConfig {
  system: SystemSettings;
  services: ServiceSettings;
  wifi: { sta: WifiStationSettings };
  mqtt: MqttSettings;
  /** Custom Modbus layout as the API stored it (validated by src/modbus), null = default layout. */
  modbus: { layout: unknown[] | null; nominal_frequency: number };
  meter: MeterSettings;
  http: { host: string; port: number; live_max_clients: number };
  paths: { state: string };
  license: { type: LicenseType; activation_date: string };
  log: { level: 'error' | 'warn' | 'info' | 'debug' };
  meter_proxy: { port: number };
  update: { public_key: string; max_bytes: number };
  cloud: Record<
    'vendor' | 'solar_manager' | 'partner_a' | 'partner_b' | 'local_solar_manager',
    { url: string }
  >;
  scripting: { file: string };
  sd_log: { retention_days: number };
  device: { id: string; model: string; restart_command: string };
}
