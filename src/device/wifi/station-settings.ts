import type { WifiStationView } from '../../contracts/network.js';
import type { ValidationIssue } from '../../config/validation.js';
import type { WifiStationSettings } from '../../config/types.js';
import { mergeBody, sectionDefaults } from './interface-body.js';

/** Writable fields of the Wi-Fi station (client) settings object. */
export const STATION_FIELDS = [
  'enable',
  'name',
  'password',
  'static_ip',
  'ip',
  'netmask',
  'gateway',
  'dns',
  'max_power',
] as const satisfies readonly (keyof WifiStationSettings)[];

/** Response-only fields a client may send back unchanged: ignored on write. */
const READ_ONLY_FIELDS = new Set(['max_tx_power', 'password_len']);

/** The station settings as GET answers them: no password, password_len and the max_tx_power alias. */
export type StationResponse = WifiStationView;

export function stationResponse(station: WifiStationSettings): StationResponse {
  const { password, ...visible } = station;
  return { ...visible, password_len: [...password].length, max_tx_power: station.max_power };
}

/** Schema defaults of the station (what POST starts from and DELETE restores). */
export function defaultStation(): WifiStationSettings {
  return sectionDefaults<WifiStationSettings>('wifi.sta');
}

export { prefixLengthOf } from '../../config/network-rules.js';

export type StationResult =
  { ok: true; station: WifiStationSettings } | { ok: false; issues: ValidationIssue[] };

/** The body merged over `base`; its values are checked by ConfigStore.apply (interface-body.ts). */
export function stationFromRequest(body: unknown, base: WifiStationSettings): StationResult {
  const result = mergeBody(body, base, STATION_FIELDS, 'station settings', READ_ONLY_FIELDS);
  return result.ok ? { ok: true, station: result.value } : result;
}
