import type { ValidationIssue } from '../../config/validation.js';
import { leavesUnder } from '../../config/paths.js';
import type { WifiStationSettings } from '../../config/types.js';

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
export interface StationResponse extends Omit<WifiStationSettings, 'password'> {
  password_len: number;
  max_tx_power: number;
}

export function stationResponse(station: WifiStationSettings): StationResponse {
  const { password, ...visible } = station;
  return { ...visible, password_len: [...password].length, max_tx_power: station.max_power };
}

/** Schema defaults of the station (what POST starts from and DELETE restores). */
export function defaultStation(): WifiStationSettings {
  return Object.fromEntries(
    leavesUnder('wifi.sta').map((leaf) => [leaf.path.slice('wifi.sta.'.length), leaf.default]),
  ) as unknown as WifiStationSettings;
}

export { prefixLengthOf } from '../../config/network-rules.js';

export type StationResult =
  { ok: true; station: WifiStationSettings } | { ok: false; issues: ValidationIssue[] };

/**
 * Merges a request body over `base` (the current settings for PUT, the defaults for POST). The
 * values are checked where every writer's are, by ConfigStore.apply: the schema's types and limits,
 * then the station's rules and the static-address rule shared with Ethernet (config/network-rules.ts).
 */
export function stationFromRequest(body: unknown, base: WifiStationSettings): StationResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ field: '', message: 'body must be a JSON object of station settings' }] };
  }
  const unknown = Object.keys(body).filter(
    (key) => !(STATION_FIELDS as readonly string[]).includes(key) && !READ_ONLY_FIELDS.has(key),
  );
  if (unknown.length > 0)
    return { ok: false, issues: unknown.map((field) => ({ field, message: 'unknown field' })) };
  const station = { ...base };
  for (const field of STATION_FIELDS) {
    if (Object.hasOwn(body, field))
      (station as Record<string, unknown>)[field] = (body as Record<string, unknown>)[field];
  }
  return { ok: true, station };
}
