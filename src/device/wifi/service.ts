import { isDeepStrictEqual } from 'node:util';
import type { AppContext } from '../../context.js';
import { defaultEthernet } from './ethernet-settings.js';
import type { WifiBackend } from './wifi-backend.js';
import type { WifiInfo } from './wifi-info.js';
import type { Output } from '../../output.js';

/** How often the link facts (ssid, ip, rssi ...) for the MQTT template's wifi.* variables are refreshed. */
const INFO_REFRESH_MS = 30_000;

/**
 * Keeps the system in line with the stored Wi-Fi settings: syncs the station at start (after a
 * restore the profile goes) and applies system.power_save whenever the settings API changes it.
 * Publishes the link facts as `ctx.services.get('wifi').info` for the template variables. The
 * wired connection is synced at start too (stored settings that differ from the defaults).
 */
export function createWifiService(ctx: AppContext, backend: WifiBackend): Output<boolean> {
  /** The power-save setting the system has, as far as this service set it. */
  let applied: boolean | undefined;
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;
  const refreshInfo = () => {
    if (refreshing) return;
    refreshing = backend
      .wifiInfo()
      .then(
        (info) => ctx.services.set('wifi', { state: 'running', info }),
        (error: Error) => ctx.services.set('wifi', { state: 'error', error: error.message }),
      )
      .finally(() => {
        refreshing = undefined;
      });
  };
  return {
    name: 'wifi',
    required: false,
    watches: ['system.power_save'],
    select: (config) => config.system.power_save,
    reconcile({ slice: powerSave }) {
      if (powerSave === applied) return;
      applied = powerSave;
      backend.setPowerSave(powerSave).catch((error: Error) => {
        ctx.logger.error(`applying system.power_save failed: ${error.message}`);
        ctx.services.set('wifi', { state: 'error', error: error.message });
      });
    },
    async start() {
      const eth = ctx.config.config.eth;
      try {
        await backend.syncEthernetAtStart(eth, isDeepStrictEqual(eth, defaultEthernet()));
      } catch (error) {
        ctx.logger.error(`Ethernet start-up sync failed: ${(error as Error).message}`);
        ctx.services.set('ethernet', { state: 'error', error: (error as Error).message });
      }
      // The start-up sync applies the power-save setting with the station profile.
      applied = ctx.config.config.system.power_save;
      try {
        await backend.syncAtStart(ctx.config.config.wifi.sta, applied);
      } catch (error) {
        ctx.logger.error(`Wi-Fi start-up sync failed: ${(error as Error).message}`);
        ctx.services.set('wifi', { state: 'error', error: (error as Error).message });
      }
      refreshInfo();
      refreshTimer = setInterval(refreshInfo, INFO_REFRESH_MS);
    },
    async stop() {
      if (refreshTimer) clearInterval(refreshTimer);
      // Nothing of this service may touch nmcli after stop: wait for a refresh in flight.
      await refreshing;
      await backend.settle();
    },
  };
}

/**
 * The link facts for /api/v1/system and /api/v1/variables: the ones the Wi-Fi service refreshed
 * last (at most INFO_REFRESH_MS old), so a client polling the API does not spawn nmcli per request;
 * asks the backend only before the first refresh finished.
 */
export function cachedWifiInfo(ctx: AppContext, backend: WifiBackend): WifiInfo | Promise<WifiInfo> {
  const status = ctx.services.get('wifi');
  return status?.state === 'running' && status.info ? (status.info as WifiInfo) : backend.wifiInfo();
}
