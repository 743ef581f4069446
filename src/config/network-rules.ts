import { getPath } from './paths.js';
import { registerRules, type ConfigRule } from './rules.js';
import type { ValidationIssue } from './validation-issue.js';

/**
 * The rules of the network settings (docs/architecture.md#configuration): one static-IPv4 check
 * shared by the Wi-Fi station (`wifi.sta`) and Ethernet (`eth`), and the station's own rules. The
 * dotted-quad form of each address is the schema's pattern; these are the rules between them.
 */

/** Prefix length of a contiguous dotted-quad netmask (255.255.255.0 -> 24), else undefined. */
export function prefixLengthOf(netmask: string): number | undefined {
  const octets = netmask.split('.').map(Number);
  if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) {
    return undefined;
  }
  const bits = octets.reduce((value, octet) => value * 256 + octet, 0);
  const prefix = 32 - Math.log2(2 ** 32 - bits);
  return Number.isInteger(prefix) && prefix >= 1 && prefix <= 32 ? prefix : undefined;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/**
 * Whether `address` lies in the subnet of `ip`/`netmask` and is neither its network nor (for
 * prefixes below /31, RFC 3021) its broadcast address.
 */
export function inSubnet(ip: string, netmask: string, address: string): boolean {
  const prefix = prefixLengthOf(netmask);
  if (prefix === undefined) return false;
  const size = 2 ** (32 - prefix);
  const network = ipv4Number(ip) - (ipv4Number(ip) % size);
  const value = ipv4Number(address);
  if (value < network || value >= network + size) return false;
  return prefix >= 31 || (value !== network && value !== network + size - 1);
}

/** The static addresses of one interface section. */
interface StaticAddresses {
  static_ip: boolean;
  ip: string;
  netmask: string;
  gateway: string;
  dns: string;
}

const ADDRESS_FIELDS = ['ip', 'netmask', 'gateway', 'dns'] as const;

/**
 * With static_ip: the four addresses are required, the netmask is contiguous, the address is a
 * host of its subnet, and the gateway another host of the same subnet. Fields relative to the section.
 */
export function staticAddressIssues(section: StaticAddresses): ValidationIssue[] {
  if (!section.static_ip) return [];
  const issues: ValidationIssue[] = [];
  for (const field of ADDRESS_FIELDS) {
    if (section[field] === '') issues.push({ field, message: 'required when static_ip is true', value: '' });
  }
  const { ip, netmask, gateway } = section;
  const prefixOk = netmask === '' || prefixLengthOf(netmask) !== undefined;
  if (!prefixOk) {
    issues.push({
      field: 'netmask',
      message: 'must be a contiguous netmask such as 255.255.255.0',
      value: netmask,
    });
  }
  if (ip === '' || netmask === '' || !prefixOk) return issues;
  if (!inSubnet(ip, netmask, ip)) {
    issues.push({ field: 'ip', message: 'is the network or broadcast address of its subnet', value: ip });
  }
  if (gateway !== '' && (!inSubnet(ip, netmask, gateway) || gateway === ip)) {
    issues.push({
      field: 'gateway',
      message: `must be another host address in the subnet of ${ip}/${netmask}`,
      value: gateway,
    });
  }
  return issues;
}

/**
 * WPA passphrase rule (IEEE 802.11i, Annex J of IEEE 802.11-2020): 8..63 printable ASCII characters
 * (0x20..0x7E), or the 256-bit PSK itself as 64 hex digits. Empty means an open network.
 */
export function wpaPasswordProblem(password: string): string | undefined {
  if (password === '') return undefined;
  if (password.length === 64)
    return /^[0-9A-Fa-f]{64}$/.test(password)
      ? undefined
      : 'a 64-character password must be 64 hex digits (the PSK)';
  if (password.length < 8 || password.length > 63)
    return 'must be 8..63 characters, 64 hex digits, or empty for an open network';
  return /^[\x20-\x7e]+$/.test(password) ? undefined : 'must be printable ASCII characters';
}

function prefixed(prefix: string, issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, field: `${prefix}.${issue.field}` }));
}

function staticRule(section: 'wifi.sta' | 'eth'): ConfigRule {
  return {
    name: `${section} static addresses`,
    watches: [section],
    check: (tree) => prefixed(section, staticAddressIssues(getPath(tree, section) as StaticAddresses)),
  };
}

const STATION_RULE: ConfigRule = {
  name: 'wifi.sta network and password',
  watches: ['wifi.sta'],
  check(tree) {
    const station = getPath(tree, 'wifi.sta') as { enable: boolean; name: string; password: string };
    const issues: ValidationIssue[] = [];
    if (station.enable && station.name === '')
      issues.push({ field: 'wifi.sta.name', message: 'required when enable is true' });
    // The password is a secret: its value is never echoed.
    const password = wpaPasswordProblem(station.password);
    if (password) issues.push({ field: 'wifi.sta.password', message: password });
    return issues;
  },
};

export const NETWORK_RULES: readonly ConfigRule[] = [staticRule('wifi.sta'), staticRule('eth'), STATION_RULE];

registerRules(NETWORK_RULES);
