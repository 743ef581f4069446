/**
 * The host's IPv4 interfaces as mDNS sees them (docs/architecture.md#services): the non-internal
 * addresses by interface, the default route's interface, and which addresses a record set carries
 * for a querier (RFC 6762 §15). Used by the announcer (src/device/mdns.ts) and the one-shot browse
 * (src/device/mdns-browse.ts).
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

/** A non-internal IPv4 address of the host with its interface and netmask. */
export interface InterfaceAddress {
  name: string;
  address: string;
  netmask: string;
}

/** The host's non-internal IPv4 addresses by interface (the announcer's links and the browse's). */
export function ipv4Interfaces(): InterfaceAddress[] {
  return Object.entries(networkInterfaces()).flatMap(([name, list]) =>
    (list ?? [])
      .filter((a) => a.family === 'IPv4' && !a.internal)
      .map((a) => ({ name, address: a.address, netmask: a.netmask })),
  );
}

/** The host's IPv4 interfaces by name (without loopback). */
export function ipv4InterfacesByName(): Map<string, InterfaceAddress[]> {
  const byName = new Map<string, InterfaceAddress[]>();
  for (const entry of ipv4Interfaces()) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  return byName;
}

function ipv4Number(address: string): number | undefined {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255))
    return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/** The interface of the IPv4 default route (/proc/net/route: destination 00000000), when known. */
export function defaultRouteInterface(): string | undefined {
  try {
    const lines = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1);
    return lines.map((line) => line.trim().split(/\s+/)).find((fields) => fields[1] === '00000000')?.[0];
  } catch {
    return undefined;
  }
}

/**
 * The addresses an mDNS record set carries (RFC 6762 §15: a host on several links answers on each
 * link with the address it has on that link). For a query: the addresses of the interface whose
 * subnet holds the querier's address, so a consumer on the LAN never sees a container bridge's
 * (docker0) address it cannot reach. For an announcement (no querier), or a querier on no
 * interface's subnet: the default route's interface's addresses, all when that is not known. The
 * announcer uses it only for its one default socket of a host without an IPv4 interface; with
 * interfaces, each interface's socket carries that interface's addresses.
 */
export function addressesFor(
  querier: string | undefined,
  interfaces: readonly InterfaceAddress[],
  defaultInterface: string | undefined,
): string[] {
  const local = onSubnet(querier, interfaces);
  if (local.length > 0) return local.map((entry) => entry.address);
  const routed = interfaces.filter((entry) => entry.name === defaultInterface);
  return (routed.length > 0 ? routed : interfaces).map((entry) => entry.address);
}

/** The entries of `interfaces` whose subnet holds `querier` (none for no or a non-IPv4 querier). */
function onSubnet(querier: string | undefined, interfaces: readonly InterfaceAddress[]): InterfaceAddress[] {
  const from = querier === undefined ? undefined : ipv4Number(querier);
  if (from === undefined) return [];
  return interfaces.filter((entry) => {
    const address = ipv4Number(entry.address);
    const mask = ipv4Number(entry.netmask);
    return address !== undefined && mask !== undefined && (address & mask) >>> 0 === (from & mask) >>> 0;
  });
}

/**
 * The link that answers a query from `querier`, of one socket per interface. Every socket receives
 * every query of the group (Linux delivers a group's datagrams to each socket bound to the port,
 * whichever interface joined it), so a query is answered on the link whose subnet holds the
 * querier; a querier on no subnet of the host by the default route's link (the first link when that
 * is not known). `defaultInterface` is asked only then: it reads /proc/net/route, and this runs for
 * every link on every query heard.
 */
export function answeringLink<L extends { name: string; addresses: readonly InterfaceAddress[] }>(
  links: readonly L[],
  querier: string | undefined,
  defaultInterface: () => string | undefined,
): L | undefined {
  const local = links.find((candidate) => onSubnet(querier, candidate.addresses).length > 0);
  if (local) return local;
  const routed = defaultInterface();
  return links.find((candidate) => candidate.name === routed) ?? links[0];
}
