import type { WifiStationSettings } from '../../config/types.js';
import type { ScanEntry } from './scan-entry.js';
import type { WifiInfo } from './wifi-info.js';

/**
 * Where Wi-Fi settings take effect: NetworkManager through nmcli on a Pi, or
 * nothing beyond the persisted settings where nmcli is absent. Settings are validated and stored by
 * the caller; a backend only applies them.
 */
export interface WifiBackend {
  readonly kind: 'nmcli' | 'file';
  scan(): Promise<ScanEntry[]>;
  /** Applies changed station settings now (the API wrote them): replaces and activates the client. */
  applyStation(station: WifiStationSettings, powerSave: boolean): Promise<void>;
  /** Clears and disables the client (DELETE /api/v1/wifi/sta/settings). */
  clearStation(): Promise<void>;
  /** Brings the system in line with the stored settings at start without disturbing a matching link. */
  syncAtStart(station: WifiStationSettings, powerSave: boolean): Promise<void>;
  setPowerSave(enabled: boolean): Promise<void>;
  /** True while a wired (non-wireless) interface has its link up. */
  ethernetLinkUp(): Promise<boolean>;
  wifiInfo(): Promise<WifiInfo>;
  /** Resolves once queued changes and background activations have finished (service stop). */
  settle(): Promise<void>;
}
