/**
 * The network sections of the convict schema (assembled in schema.ts): the Wi-Fi station
 * (/api/v1/wifi/settings) and the wired connection (/api/v1/eth/settings), both with the same
 * static IPv4 leaves; their rules beyond the schema are in network-rules.ts.
 */
import { bool, num, secret, text } from './schema-leaves.js';

export const DOTTED_QUAD = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

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
