import type { Timer } from '../../clock.js';
import { isDeepStrictEqual } from 'node:util';
import type { EthernetSettings, WifiStationSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import type { Output } from '../../output.js';
import { defaultEthernet } from '../wifi/ethernet-settings.js';
import type { WifiBackend } from '../wifi/wifi-backend.js';
import type { WifiInfo } from '../wifi/wifi-info.js';

/** How often the link facts (ssid, ip, rssi ...) for the MQTT template's wifi.* variables are refreshed. */
const INFO_REFRESH_MS = 30_000;

export const NETWORK_OUTPUT = 'network';

/** What the network output runs on: the stored station, the wired settings and Wi-Fi power saving. */
export interface NetworkSlice {
  sta: WifiStationSettings;
  eth: EthernetSettings;
  powerSave: boolean;
}

/**
 * The network settings as an output (docs/architecture.md#wi-fi-and-ethernet): whoever writes
 * `wifi.sta`, `eth` or `system.power_save` (the settings API, the Wi-Fi and Ethernet routes, a
 * backup restore, the add-on's options), the change reaches the backend here, and a backend that
 * fails makes the write answer 500 naming this output. At start the system is brought in line with
 * the stored settings without disturbing a matching link. The Wi-Fi link facts are refreshed into
 * the `wifi` service record (its `info`), which the template's wifi.* variables read.
 */
export function createNetworkOutput(ctx: AppContext, backend: WifiBackend): Output<NetworkSlice> {
  /** What the backend has, as far as this output applied it; undefined before start. */
  let applied: NetworkSlice | undefined;
  let refreshTimer: Timer | undefined;
  let refreshing: Promise<void> | undefined;
  const refreshInfo = (): void => {
    if (refreshing) return;
    refreshing = backend
      .wifiInfo()
      .then(
        (info) => ctx.services.merge('wifi', { state: ctx.services.get('wifi')?.state ?? 'running', info }),
        (error: Error) => ctx.services.merge('wifi', { info: undefined, error: error.message }),
      )
      .finally(() => {
        refreshing = undefined;
      });
  };
  const report = (error?: string): void =>
    ctx.services.set(NETWORK_OUTPUT, { state: error ? 'error' : 'running', ...(error ? { error } : {}) });

  return {
    name: NETWORK_OUTPUT,
    watches: ['wifi.sta', 'eth', 'system.power_save'],
    select: (config) => ({ sta: config.wifi.sta, eth: config.eth, powerSave: config.system.power_save }),
    async reconcile({ slice }) {
      const before = applied;
      if (!before) return;
      if (!isDeepStrictEqual(before.eth, slice.eth)) {
        await backend.applyEthernet(slice.eth);
        applied = { ...before, eth: slice.eth };
      }
      if (!isDeepStrictEqual(before.sta, slice.sta)) await backend.applyStation(slice.sta, slice.powerSave);
      else if (before.powerSave !== slice.powerSave) await backend.setPowerSave(slice.powerSave);
      applied = slice;
      report();
    },
    async start() {
      const { eth, wifi, system } = ctx.config.config;
      const problems: string[] = [];
      try {
        await backend.syncEthernetAtStart(eth, isDeepStrictEqual(eth, defaultEthernet()));
      } catch (error) {
        problems.push(`Ethernet start-up sync failed: ${(error as Error).message}`);
        ctx.services.merge('ethernet', { state: 'error', error: (error as Error).message });
      }
      // The start-up sync applies the power-save setting with the station profile.
      try {
        await backend.syncAtStart(wifi.sta, system.power_save);
      } catch (error) {
        problems.push(`Wi-Fi start-up sync failed: ${(error as Error).message}`);
        ctx.services.merge('wifi', { state: 'error', error: (error as Error).message });
      }
      for (const problem of problems) ctx.logger.error(problem);
      applied = { sta: wifi.sta, eth, powerSave: system.power_save };
      report(problems.length > 0 ? problems.join('; ') : undefined);
      refreshInfo();
      refreshTimer = ctx.clock.setInterval(refreshInfo, INFO_REFRESH_MS);
    },
    async stop() {
      if (refreshTimer) ctx.clock.clearInterval(refreshTimer);
      applied = undefined;
      // Nothing of this output may touch nmcli after stop: wait for a refresh in flight.
      await refreshing;
      await backend.settle();
    },
  };
}

/**
 * The link facts for /api/v1/system and /api/v1/variables: the ones the network output refreshed
 * last (at most INFO_REFRESH_MS old), so a client polling the API does not spawn nmcli per request;
 * asks the backend only before the first refresh finished.
 */
export function cachedWifiInfo(ctx: AppContext, backend: WifiBackend): WifiInfo | Promise<WifiInfo> {
  const info = ctx.services.get('wifi')?.info;
  return info ? (info as WifiInfo) : backend.wifiInfo();
}
