import type { EthernetSettings, WifiStationSettings } from '../../config/types.js';
import type { EthernetInfo } from './ethernet-info.js';
import type { ScanEntry } from './scan-entry.js';
import type { WifiInfo } from './wifi-info.js';

/**
 * Where Wi-Fi settings take effect (docs/architecture.md#wi-fi-and-ethernet): NetworkManager through nmcli on a Pi, or
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
  /** Applies changed Ethernet settings now (network.ethernet_interface): DHCP, static or disabled. */
  applyEthernet(eth: EthernetSettings): Promise<void>;
  /** Brings the wired connection in line with stored settings that differ from the defaults. */
  syncEthernetAtStart(eth: EthernetSettings, isDefault: boolean): Promise<void>;
  /** The `ethernet` object of /api/v1/system. */
  ethernetInfo(): Promise<EthernetInfo>;
  /** Resolves once queued changes and background activations have finished (service stop). */
  settle(): Promise<void>;
}
