import type { ValidationIssue } from '../../config/validation.js';
import type { EthernetSettings } from '../../config/types.js';
import { mergeBody, sectionDefaults } from './interface-body.js';

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
  return sectionDefaults<EthernetSettings>('eth');
}

export type EthernetResult = { ok: true; eth: EthernetSettings } | { ok: false; issues: ValidationIssue[] };

/** The body merged over `base`; its values are checked by ConfigStore.apply (interface-body.ts). */
export function ethernetFromRequest(body: unknown, base: EthernetSettings): EthernetResult {
  const result = mergeBody(body, base, ETHERNET_FIELDS, 'Ethernet settings');
  return result.ok ? { ok: true, eth: result.value } : result;
}
