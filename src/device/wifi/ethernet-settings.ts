import { checkTree, type ValidationIssue } from '../../config/validation.js';
import { leavesUnder } from '../../config/paths.js';
import type { EthernetSettings } from '../../config/types.js';
import { prefixLengthOf } from './station-settings.js';

/** Writable fields of the Ethernet settings object (EthernetSettings of the device API). */
export const ETHERNET_FIELDS = [
  'enable',
  'static_ip',
  'ip',
  'netmask',
  'gateway',
  'dns',
] as const satisfies readonly (keyof EthernetSettings)[];

/** Schema defaults of the Ethernet settings (what POST starts from). */
export function defaultEthernet(): EthernetSettings {
  return Object.fromEntries(
    leavesUnder('eth').map((leaf) => [leaf.path.slice('eth.'.length), leaf.default]),
  ) as unknown as EthernetSettings;
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

function staticIssues(eth: EthernetSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of ['ip', 'netmask', 'gateway', 'dns'] as const) {
    if (eth[field] === '') issues.push({ field, message: 'required when static_ip is true', value: '' });
  }
  const prefixOk = eth.netmask === '' || prefixLengthOf(eth.netmask) !== undefined;
  if (!prefixOk) {
    issues.push({
      field: 'netmask',
      message: 'must be a contiguous netmask such as 255.255.255.0',
      value: eth.netmask,
    });
  }
  if (eth.ip !== '' && eth.netmask !== '' && prefixOk && !inSubnet(eth.ip, eth.netmask, eth.ip)) {
    issues.push({ field: 'ip', message: 'is the network or broadcast address of its subnet', value: eth.ip });
  }
  if (eth.ip !== '' && eth.gateway !== '' && eth.netmask !== '' && prefixOk) {
    if (!inSubnet(eth.ip, eth.netmask, eth.gateway) || eth.gateway === eth.ip) {
      issues.push({
        field: 'gateway',
        message: `must be another host address in the subnet of ${eth.ip}/${eth.netmask}`,
        value: eth.gateway,
      });
    }
  }
  return issues;
}

export type EthernetResult = { ok: true; eth: EthernetSettings } | { ok: false; issues: ValidationIssue[] };

/**
 * Merges a request body over `base` (the current settings for PUT, the defaults for POST) and
 * validates the result: field types and limits by the config schema, then, with static_ip, the
 * four addresses (required, a contiguous netmask, the gateway a host of the subnet).
 */
export function ethernetFromRequest(body: unknown, base: EthernetSettings): EthernetResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ field: '', message: 'body must be a JSON object of Ethernet settings' }] };
  }
  const unknown = Object.keys(body).filter((key) => !(ETHERNET_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    return { ok: false, issues: unknown.map((field) => ({ field, message: 'unknown field' })) };
  const eth = { ...base };
  for (const field of ETHERNET_FIELDS) {
    if (Object.hasOwn(body, field))
      (eth as Record<string, unknown>)[field] = (body as Record<string, unknown>)[field];
  }
  const schemaIssues = checkTree({ eth }, false).map((issue) => ({
    ...issue,
    field: issue.field.replace(/^eth\./, ''),
  }));
  if (schemaIssues.length > 0) return { ok: false, issues: schemaIssues };
  const issues = eth.static_ip ? staticIssues(eth) : [];
  return issues.length > 0 ? { ok: false, issues } : { ok: true, eth };
}
