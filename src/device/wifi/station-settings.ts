import { checkTree, type ValidationIssue } from '../../config/validation.js';
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

/**
 * WPA passphrase rule (IEEE 802.11i, Annex J of IEEE 802.11-2020): 8..63 printable ASCII characters
 * (0x20..0x7E), or the 256-bit PSK itself as 64 hex digits. Empty means an open network.
 */
function passwordIssue(password: string): string | undefined {
  if (password === '') return undefined;
  if (password.length === 64)
    return /^[0-9A-Fa-f]{64}$/.test(password)
      ? undefined
      : 'a 64-character password must be 64 hex digits (the PSK)';
  if (password.length < 8 || password.length > 63)
    return 'must be 8..63 characters, 64 hex digits, or empty for an open network';
  return /^[\x20-\x7e]+$/.test(password) ? undefined : 'must be printable ASCII characters';
}

function crossFieldIssues(station: WifiStationSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (station.enable && station.name === '')
    issues.push({ field: 'name', message: 'required when enable is true' });
  const password = passwordIssue(station.password);
  if (password) issues.push({ field: 'password', message: password });
  if (station.static_ip) {
    for (const field of ['ip', 'netmask', 'gateway', 'dns'] as const) {
      if (station[field] === '')
        issues.push({ field, message: 'required when static_ip is true', value: '' });
    }
    if (station.netmask !== '' && prefixLengthOf(station.netmask) === undefined) {
      issues.push({
        field: 'netmask',
        message: 'must be a contiguous netmask such as 255.255.255.0',
        value: station.netmask,
      });
    }
  }
  return issues;
}

export type StationResult =
  { ok: true; station: WifiStationSettings } | { ok: false; issues: ValidationIssue[] };

/**
 * Merges a request body over `base` (the current settings for PUT, the defaults for POST) and
 * validates the result: field types and limits by the config schema, then the rules between fields.
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
  const schemaIssues = checkTree({ wifi: { sta: station } }, false).map((issue) => ({
    ...issue,
    field: issue.field.replace(/^wifi\.sta\./, ''),
  }));
  if (schemaIssues.length > 0) return { ok: false, issues: schemaIssues };
  const issues = crossFieldIssues(station);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, station };
}
