/**
 * Wi-Fi scan entries (array elements of GET /api/v1/wifi/scan) built from
 * the fields NetworkManager reports for an access point. Pure functions; an access point that cannot
 * be shown within the API's constraints is skipped, never thrown.
 */

import type { ScanEntry } from '../../contracts/network.js';

export type { ScanEntry };

/** The nmcli `device wifi list` fields a scan asks for; BANDWIDTH exists from NetworkManager 1.44 on. */
export const SCAN_FIELDS = [
  'BSSID',
  'SSID-HEX',
  'SSID',
  'CHAN',
  'SIGNAL',
  'SECURITY',
  'WPA-FLAGS',
  'RSN-FLAGS',
] as const;
export const BANDWIDTH_FIELD = 'BANDWIDTH';

const MAC = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The SSID as text: from SSID-HEX (the exact octets) when they are valid UTF-8, else the SSID column
 * as nmcli printed it. IEEE 802.11-2020 §9.4.2.2: an SSID is 0..32 octets.
 */
export function ssidOf(hex: string | undefined, printed: string): string {
  if (hex && /^([0-9A-Fa-f]{2})+$/.test(hex)) {
    try {
      return utf8.decode(Buffer.from(hex, 'hex'));
    } catch {
      // not UTF-8: nmcli's own rendering is the best text there is
    }
  }
  return printed;
}

/**
 * Received signal in dBm from NetworkManager's 0..100 quality. NetworkManager maps dBm linearly with
 * -100 dBm -> 0 % and -40 dBm -> 100 % (NetworkManager nm_wifi_utils_level_to_quality()); this
 * is that mapping inverted, so an access point at or above -40 dBm reads -40.
 */
export function rssiFromSignal(signal: number): number {
  return Math.max(-127, Math.min(0, Math.round(signal * 0.6 - 100)));
}

/** SECURITY column ('WPA1 WPA2', 'WPA3', 'WEP', '' for open) as auth_mode ('WPA/WPA2', 'open'). */
export function authModeOf(security: string): string {
  const tokens = security.split(/\s+/).filter((token) => token !== '' && token !== '--');
  if (tokens.length === 0) return 'open';
  return tokens.map((token) => (token === 'WPA1' ? 'WPA' : token)).join('/');
}

/** Cipher names from WPA-FLAGS / RSN-FLAGS ('pair_tkip pair_ccmp group_tkip psk'): prefix pair_ or group_. */
function ciphersOf(flags: string, prefix: 'pair_' | 'group_'): string[] {
  return flags
    .split(/\s+/)
    .filter((flag) => flag.startsWith(prefix))
    .map((flag) => flag.slice(prefix.length).toUpperCase());
}

export function ciphersFor(
  security: string,
  wpaFlags: string,
  rsnFlags: string,
): { pairwise_cipher: string; group_cipher: string } {
  const flags = `${rsnFlags} ${wpaFlags}`;
  const pairwise = [...new Set(ciphersOf(flags, 'pair_'))];
  const group = [...new Set(ciphersOf(flags, 'group_'))];
  if (pairwise.length === 0 && group.length === 0 && /\bWEP\b/.test(security)) {
    return { pairwise_cipher: 'WEP', group_cipher: 'WEP' };
  }
  return {
    pairwise_cipher: pairwise.length > 0 ? pairwise.join('/') : 'none',
    group_cipher: group.length > 0 ? group.join('/') : 'none',
  };
}

/**
 * ht from the channel width. A 40 MHz BSS in the 2.4 GHz band has its secondary channel 4 channels
 * above or below the primary (IEEE 802.11n HT40 in 2.4 GHz): primaries 1..4 can only be '40+' and
 * 10..13 only '40-'; for 5..9 nmcli does not say which side, so ht is left out.
 */
export function htOf(bandwidth: string | undefined, channel: number): ScanEntry['ht'] {
  const mhz = Number.parseInt(bandwidth ?? '', 10);
  if (mhz === 20) return '20';
  if (mhz !== 40) return undefined;
  if (channel <= 4) return '40+';
  if (channel >= 10) return '40-';
  return undefined;
}

/**
 * One scan entry from an nmcli record, or undefined when the access point lies outside the API's
 * constraints: hidden (empty SSID), channel outside 1..13 (the whatwatt Go is 2.4 GHz only, so
 * 5 GHz access points are not listed), or an unreadable BSSID or signal.
 */
export function scanEntryOf(record: Record<string, string>): ScanEntry | undefined {
  const ssid = ssidOf(record['SSID-HEX'], record.SSID ?? '');
  const channel = Number(record.CHAN);
  const signal = Number(record.SIGNAL);
  const bssid = (record.BSSID ?? '').toUpperCase();
  if (ssid === '' || Buffer.byteLength(ssid) > 32 || [...ssid].length > 32) return undefined;
  if (!Number.isInteger(channel) || channel < 1 || channel > 13) return undefined;
  if (!Number.isFinite(signal) || record.SIGNAL === '' || !MAC.test(bssid)) return undefined;
  const security = record.SECURITY ?? '';
  const entry: ScanEntry = {
    ssid,
    bssid,
    channel,
    rssi: rssiFromSignal(signal),
    signal: Math.max(0, Math.min(100, Math.round(signal))),
    auth_mode: authModeOf(security),
    ...ciphersFor(security, record['WPA-FLAGS'] ?? '', record['RSN-FLAGS'] ?? ''),
  };
  const ht = htOf(record[BANDWIDTH_FIELD], channel);
  if (ht) entry.ht = ht;
  return entry;
}

/** Scan entries from nmcli records: one per BSSID, strongest first. */
export function scanEntriesOf(records: readonly Record<string, string>[]): ScanEntry[] {
  const byBssid = new Map<string, ScanEntry>();
  for (const record of records) {
    const entry = scanEntryOf(record);
    if (entry && !byBssid.has(entry.bssid)) byBssid.set(entry.bssid, entry);
  }
  return [...byBssid.values()].sort((a, b) => b.signal - a.signal || a.ssid.localeCompare(b.ssid));
}
