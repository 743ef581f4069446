import type { ValidationIssue } from '../../config/validation.js';
import { leavesUnder } from '../../config/paths.js';
import type { EthernetSettings } from '../../config/types.js';

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

export type EthernetResult = { ok: true; eth: EthernetSettings } | { ok: false; issues: ValidationIssue[] };

/**
 * Merges a request body over `base` (the current settings for PUT, the defaults for POST). The
 * values are checked where every writer's are, by ConfigStore.apply: the schema's types and limits,
 * then the static-address rule shared with the Wi-Fi station (config/network-rules.ts).
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
  return { ok: true, eth };
}
