import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { carrierUp } from './ethernet-link.js';
import type { EthernetInfoView } from '../../contracts/system.js';

/** The `ethernet` object of /api/v1/system, as the whatwatt Go has it. */
export type EthernetInfo = EthernetInfoView;

export const NO_ETHERNET: EthernetInfo = { mac: '', status: 'Down', ip: '', mask: '', gateway: '', dns: '' };

/** Dotted-quad netmask of a prefix length (24 -> 255.255.255.0). */
export function netmaskOf(prefix: number): string {
  const bits = prefix <= 0 ? 0 : (0xffffffff << (32 - Math.min(prefix, 32))) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

/**
 * The default gateway of `ifname` from /proc/net/route (columns Iface, Destination, Gateway ...;
 * addresses as little-endian hex): the row with destination 00000000.
 */
export function defaultGatewayOf(routeTable: string, ifname: string): string {
  for (const line of routeTable.split('\n').slice(1)) {
    const [iface, destination, gateway] = line.trim().split(/\s+/);
    if (iface !== ifname || destination !== '00000000' || !gateway || !/^[0-9A-Fa-f]{8}$/.test(gateway))
      continue;
    const value = Number.parseInt(gateway, 16);
    return [0, 8, 16, 24].map((shift) => (value >>> shift) & 0xff).join('.');
  }
  return '';
}

/** The first `nameserver` of a resolv.conf (resolv.conf(5)). */
export function firstNameserver(resolvConf: string): string {
  const match = /^\s*nameserver\s+(\S+)/m.exec(resolvConf);
  return match?.[1] ?? '';
}

async function readOr(path: string, fallback: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return fallback;
  }
}

/**
 * The kernel's view of a wired interface (no NetworkManager): MAC and carrier from sysfs, the IPv4
 * address from the interface list, gateway from the routing table, DNS from resolv.conf.
 */
export async function kernelEthernetInfo(sysClassNet: string, ifname: string): Promise<EthernetInfo> {
  const mac = (await readOr(join(sysClassNet, ifname, 'address'), '')).trim().toUpperCase();
  const up = await carrierUp(sysClassNet, ifname);
  const ipv4 = networkInterfaces()[ifname]?.find((address) => address.family === 'IPv4');
  return {
    mac,
    status: up ? 'Up' : 'Down',
    ip: ipv4?.address ?? '',
    mask: ipv4?.netmask ?? '',
    gateway: ipv4 ? defaultGatewayOf(await readOr('/proc/net/route', ''), ifname) : '',
    dns: ipv4 ? firstNameserver(await readOr('/etc/resolv.conf', '')) : '',
  };
}
