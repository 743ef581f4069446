/**
 * Home Assistant add-on: the add-on's options (/data/options.json, checked by the Supervisor against
 * the `schema` of config.yaml) and what the Supervisor tells about the MQTT broker and the add-on
 * itself, turned into the daemon's admin config file. Pure: no files, no network.
 */

/**
 * The options of config.yaml. Every option is optional (`?` in its schema, no default): an option
 * is present in /data/options.json only when the user set it in the add-on's Configuration page.
 */
export interface AddonOptions {
  meter_source?: string;
  protection?: boolean;
  password?: string;
  modbus_enable?: boolean;
  modbus_profile?: string;
  modbus_rtu_enable?: boolean;
  modbus_rtu_device?: string;
  modbus_rtu_baud?: number;
  modbus_rtu_parity?: string;
  modbus_rtu_unit_id?: number;
  modbus_rtu_profile?: string;
  mqtt_url?: string;
  mqtt_username?: string;
  mqtt_password?: string;
  log_level?: string;
}

/** `data` of the Supervisor's GET /services/mqtt (the Mosquitto add-on or another provider). */
export interface SupervisorMqtt {
  host: string;
  port: number;
  ssl: boolean;
  username?: string;
  password?: string;
}

/** The HTTP port inside the add-on container: config.yaml's ingress_port and its optional port. */
export const ADDON_HTTP_PORT = 8080;

/**
 * The Modbus TCP port inside the container: the daemon runs as a user that cannot bind ports
 * below 1024; config.yaml publishes it as the host's port 502 (docs/architecture.md#container).
 */
export const ADDON_MODBUS_PORT = 5020;

/** Setting path each simple option sets (the MQTT options are handled with the broker). */
const OPTION_PATHS: Record<string, string> = {
  meter_source: 'meter.source',
  protection: 'system.protection',
  password: 'system.password',
  modbus_enable: 'services.modbus.enable',
  modbus_profile: 'services.modbus.profile',
  modbus_rtu_enable: 'services.modbus_rtu.enable',
  modbus_rtu_device: 'services.modbus_rtu.device',
  modbus_rtu_baud: 'services.modbus_rtu.baud',
  modbus_rtu_parity: 'services.modbus_rtu.parity',
  modbus_rtu_unit_id: 'services.modbus_rtu.unit_id',
  modbus_rtu_profile: 'services.modbus_rtu.profile',
  log_level: 'log.level',
};

/**
 * The ingress panel of the add-on as a Home Assistant internal link (`homeassistant://` URLs are
 * what MQTT discovery's configuration_url accepts besides http(s)); `slug` is the full slug the
 * Supervisor reports for the add-on (repository hash, underscore, config.yaml slug).
 */
export function ingressPanelUrl(slug: string): string {
  return `homeassistant://hassio/ingress/${slug}`;
}

function brokerUrl(mqtt: SupervisorMqtt): string {
  return `${mqtt.ssl ? 'mqtts' : 'mqtt'}://${mqtt.host}:${mqtt.port}`;
}

/** MQTT section: the user's broker when set, else the Supervisor's, else MQTT stays off. */
function mqttSection(options: AddonOptions, service: SupervisorMqtt | undefined): Record<string, unknown> {
  if (options.mqtt_url) {
    return {
      enable: true,
      url: options.mqtt_url,
      username: options.mqtt_username ?? '',
      password: options.mqtt_password ?? '',
    };
  }
  if (service) {
    return {
      enable: true,
      url: brokerUrl(service),
      username: service.username ?? '',
      password: service.password ?? '',
    };
  }
  return {};
}

function setPath(tree: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]!] = value;
}

/**
 * Setting paths the add-on fixes, shown locked in the web interface and refused by the settings
 * API (docs/architecture.md#add-on-options): every option the user set, and the Modbus port,
 * which the add-on's port mapping owns.
 */
export function lockedPaths(options: AddonOptions): string[] {
  // log.level is a daemon-only key: the settings API never writes it, nothing to lock.
  const locked = Object.keys(OPTION_PATHS)
    .filter((option) => options[option as keyof AddonOptions] !== undefined && option !== 'log_level')
    .map((option) => OPTION_PATHS[option]!);
  if (options.mqtt_url) locked.push('mqtt.enable', 'mqtt.url', 'mqtt.username', 'mqtt.password');
  locked.push('services.modbus.port');
  return locked;
}

/**
 * The admin config file for the daemon (README "Configuration"): the options the user set, the
 * Supervisor's broker, the add-on's fixed ports and `addon.*` (running as an add-on, the locked
 * paths). State stays in /data (the daemon's --state-dir), so settings written through the API
 * outlive add-on updates.
 */
export function addonConfig(
  options: AddonOptions,
  service: SupervisorMqtt | undefined,
  slug: string | undefined,
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [option, path] of Object.entries(OPTION_PATHS)) {
    const value = options[option as keyof AddonOptions];
    if (value !== undefined) setPath(config, path, value);
  }
  const mqtt = mqttSection(options, service);
  if (slug) mqtt.discovery = { configuration_url: ingressPanelUrl(slug) };
  if (Object.keys(mqtt).length > 0) config.mqtt = mqtt;
  setPath(config, 'services.modbus.port', ADDON_MODBUS_PORT);
  config.http = { host: '0.0.0.0', port: ADDON_HTTP_PORT };
  config.addon = { enable: true, locked: lockedPaths(options).join(',') };
  return config;
}
