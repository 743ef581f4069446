import { isIP } from 'node:net';
import type { MqttSettings } from '../config/types.js';

/** Where the broker is: `url`, the broker URL; the secure form uses the scheme mqtts and a port. */
export interface BrokerAddress {
  secure: boolean;
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  port: number;
}

export type BrokerUrlResult = { ok: true; address: BrokerAddress } | { ok: false; reason: string };

/**
 * Parses `mqtt://host:port` or `mqtts://host:port`. Host and port are both required; a path, query,
 * fragment or user info in the URL is rejected (credentials belong in username / password, which
 * GET never shows, while the URL is shown as is).
 */
export function parseBrokerUrl(text: string): BrokerUrlResult {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be a URL of the form mqtt://host:port or mqtts://host:port' };
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') {
    return { ok: false, reason: 'scheme must be mqtt:// or mqtts://' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not contain credentials (use username and password)' };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return { ok: false, reason: 'must name a host' };
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return { ok: false, reason: 'must not have a path, query or fragment' };
  }
  const secure = url.protocol === 'mqtts:';
  // No port: the IANA MQTT ports, 1883 and 8883 for TLS (MQTT 3.1.1 §5.1 / MQTT 5.0 §5.1), as the
  // device's Home Assistant integration tells users to enter the URL (`mqtt://192.168.1.101`).
  const port = url.port === '' ? (secure ? 8883 : 1883) : Number(url.port);
  return { ok: true, address: { secure, host, port } };
}

export interface TlsSettings {
  /** PEM CA certificate(s) the broker certificate must chain to; system CAs when absent. */
  ca?: string;
  cert?: string;
  key?: string;
  passphrase?: string;
  /** skip_cn_check: skip only the host name check; the chain is still verified. */
  skipHostnameCheck: boolean;
  /** SNI name: the host when it is a name, absent for an IP address (RFC 6066 §3). */
  servername?: string;
}

export interface LastWill {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
}

export interface LinkOptions {
  address: BrokerAddress;
  clientId: string;
  username?: string;
  password?: string;
  tls?: TlsSettings;
  will?: LastWill;
  keepaliveSeconds: number;
}

/**
 * Client id when client_id is empty (schema doc). Longer than the 23 alphanumerics every server must
 * accept (MQTT 3.1.1 §3.1.3.1); mosquitto, EMQX, HiveMQ and Home Assistant's add-on accept it.
 */
export function defaultClientId(systemId: string): string {
  return `meter-gateway-${systemId}`;
}

/**
 * Connection options from the MQTT settings, or the reason they cannot be used. Client certificate
 * and key are only used together (mqtt.js would even switch a mqtt:// URL to TLS when both are set;
 * here the scheme alone decides).
 */
export function linkOptionsOf(
  settings: MqttSettings,
  systemId: string,
  will: LastWill | undefined,
): { ok: true; options: LinkOptions } | { ok: false; reason: string } {
  const parsed = parseBrokerUrl(settings.url);
  if (!parsed.ok) return { ok: false, reason: `url ${parsed.reason}` };
  const { address } = parsed;
  const options: LinkOptions = {
    address,
    clientId: settings.client_id !== '' ? settings.client_id : defaultClientId(systemId),
    keepaliveSeconds: 30,
  };
  if (settings.username !== '') options.username = settings.username;
  if (settings.password !== '') options.password = settings.password;
  if (will) options.will = will;
  if (address.secure) {
    const tls: TlsSettings = { skipHostnameCheck: settings.skip_cn_check };
    if (isIP(address.host) === 0) tls.servername = address.host;
    if (settings.broker.certificate !== '') tls.ca = settings.broker.certificate;
    if (settings.client.certificate !== '' && settings.client.key !== '') {
      tls.cert = settings.client.certificate;
      tls.key = settings.client.key;
      if (settings.client.key_password !== '') tls.passphrase = settings.client.key_password;
    }
    options.tls = tls;
  }
  return { ok: true, options };
}
