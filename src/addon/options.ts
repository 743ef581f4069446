/**
 * Home Assistant add-on: the add-on's options (/data/options.json, checked by the Supervisor against
 * the `schema` of config.yaml) and what the Supervisor tells about the MQTT broker and the add-on
 * itself, turned into the daemon's admin config file. Pure: no files, no network.
 */

/** The options of config.yaml; optional ones (`?` in its schema) are absent when unset. */
export interface AddonOptions {
  meter_source: string;
  protection: boolean;
  password?: string;
  modbus_enable: boolean;
  modbus_profile: string;
  modbus_rtu_enable: boolean;
  modbus_rtu_device?: string;
  modbus_rtu_baud: number;
  modbus_rtu_parity: string;
  modbus_rtu_unit_id: number;
  modbus_rtu_profile: string;
  mqtt_url?: string;
  mqtt_username?: string;
  mqtt_password?: string;
  log_level: string;
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

/**
 * The admin config file for the daemon (README "Configuration"). State stays in /data (the
 * daemon's --state-dir), so settings written through the API outlive add-on updates.
 */
export function addonConfig(
  options: AddonOptions,
  service: SupervisorMqtt | undefined,
  slug: string | undefined,
): Record<string, unknown> {
  const system: Record<string, unknown> = { protection: options.protection };
  if (options.password) system.password = options.password;
  const mqtt = mqttSection(options, service);
  if (slug) mqtt.discovery = { configuration_url: ingressPanelUrl(slug) };
  return {
    meter: { source: options.meter_source },
    system,
    services: {
      modbus: { enable: options.modbus_enable, profile: options.modbus_profile },
      modbus_rtu: {
        enable: options.modbus_rtu_enable,
        device: options.modbus_rtu_device ?? '',
        baud: options.modbus_rtu_baud,
        parity: options.modbus_rtu_parity,
        unit_id: options.modbus_rtu_unit_id,
        profile: options.modbus_rtu_profile,
      },
    },
    mqtt,
    http: { host: '0.0.0.0', port: ADDON_HTTP_PORT },
    log: { level: options.log_level },
  };
}
