import { networkInterfaces } from 'node:os';

/**
 * What the network side knows about the link: at least `ssid` (system JSON wifi.ssid, "" when unknown)
 * and `ip` (wifi.ip), plus whatever else the Wi-Fi backend reports (rssi, channel, mac ...). Also
 * the `wifi.*` template variables (docs/architecture.md#mqtt-template).
 */
export type WifiInfo = Readonly<Record<string, string | number>> & {
  readonly ssid: string;
  readonly ip: string;
};

export type WifiInfoSource = () => WifiInfo | Promise<WifiInfo>;

/**
 * Default source without a Wi-Fi backend: the first non-internal IPv4 address of the host (its
 * interface name and MAC too); ssid stays "" because the OS interface list does not know it.
 */
export function hostNetworkInfo(): WifiInfo {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) {
        return { ssid: '', ip: address.address, netmask: address.netmask, mac: address.mac, interface: name };
      }
    }
  }
  return { ssid: '', ip: '' };
}
