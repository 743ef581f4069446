/**
 * An element of GET /api/v1/wifi/scan, declared once for the scan code that builds it and the web
 * page that lists it (a declaration file: the page imports it type-only).
 */

export interface ScanEntry {
  /** max length 32 */
  ssid: string;
  /** MAC address of the access point, upper-case, colon-separated. */
  bssid: string;
  /** 1..13 */
  channel: number;
  /** '20', '40+' or '40-'; only when the channel width and the secondary channel's side are known. */
  ht?: '20' | '40+' | '40-';
  /** -127..0 dBm */
  rssi: number;
  /** 0..100 % */
  signal: number;
  auth_mode: string;
  pairwise_cipher: string;
  group_cipher: string;
}
