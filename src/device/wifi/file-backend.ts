import { networkInterfaces } from 'node:os';
import type { EthernetSettings, WifiStationSettings } from '../../config/types.js';
import { kernelEthernetInfo, type EthernetInfo } from './ethernet-info.js';
import type { WifiBackend } from './wifi-backend.js';
import { hostNetworkInfo, type WifiInfo } from './wifi-info.js';
import { wiredLinksUp, wirelessInterfaces } from './ethernet-link.js';
import type { ScanEntry } from './scan-entry.js';

export interface FileBackendOptions {
  sysClassNet: string;
  onState: (state: string, error?: string) => void;
  ethernetInterface: () => string;
  onEthernetState: (state: string) => void;
}

/**
 * The backend where nmcli is absent (docs/architecture.md#wi-fi-and-ethernet): the settings the API stores
 * are all there is; no scan results. Ethernet detection and the reported address come from the kernel's view.
 */
export class FileWifiBackend implements WifiBackend {
  readonly kind = 'file';

  constructor(private readonly options: FileBackendOptions) {}

  async scan(): Promise<ScanEntry[]> {
    return [];
  }

  async applyStation(station: WifiStationSettings): Promise<void> {
    this.options.onState(station.enable && station.name !== '' ? 'configured' : 'disabled');
  }

  async clearStation(): Promise<void> {
    this.options.onState('disabled');
  }

  async syncAtStart(station: WifiStationSettings): Promise<void> {
    await this.applyStation(station);
  }

  async setPowerSave(): Promise<void> {
    // stored by the settings API; nothing here can apply it
  }

  async ethernetLinkUp(): Promise<boolean> {
    return (await wiredLinksUp(this.options.sysClassNet)).length > 0;
  }

  /** The Wi-Fi interface's address when one has an address, else the host's (SSID unknown here). */
  async wifiInfo(): Promise<WifiInfo> {
    const interfaces = networkInterfaces();
    for (const name of await wirelessInterfaces(this.options.sysClassNet)) {
      const ipv4 = interfaces[name]?.find((address) => address.family === 'IPv4' && !address.internal);
      if (ipv4) return { ssid: '', ip: ipv4.address, interface: name };
    }
    return hostNetworkInfo();
  }

  async applyEthernet(eth: EthernetSettings): Promise<void> {
    this.options.onEthernetState(eth.enable ? 'configured' : 'disabled');
  }

  async syncEthernetAtStart(eth: EthernetSettings): Promise<void> {
    await this.applyEthernet(eth);
  }

  ethernetInfo(): Promise<EthernetInfo> {
    return kernelEthernetInfo(this.options.sysClassNet, this.options.ethernetInterface());
  }

  async settle(): Promise<void> {
    // nothing runs in the background
  }
}
