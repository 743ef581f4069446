import type { AppContext } from '../../context.js';
import type { Service } from '../../service.js';
import type { WifiBackend } from './wifi-backend.js';
import type { WifiInfo } from './wifi-info.js';

/** How often the link facts (ssid, ip, rssi ...) for the MQTT template's wifi.* variables are refreshed. */
const INFO_REFRESH_MS = 30_000;

/**
 * Keeps the system in line with the stored Wi-Fi settings: syncs the station at start (after a
 * restore the profile goes) and applies system.power_save whenever the settings API changes it.
 * Publishes the link facts as `ctx.services.get('wifi').info` for the template variables.
 */
export function createWifiService(ctx: AppContext, backend: WifiBackend): Service {
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
  const onChange = (paths: readonly string[]) => {
    if (!paths.includes('system.power_save')) return;
    backend.setPowerSave(ctx.config.config.system.power_save).catch((error: Error) => {
      ctx.logger.error(`applying system.power_save failed: ${error.message}`);
      ctx.services.set('wifi', { state: 'error', error: error.message });
    });
  };
  return {
    name: 'wifi',
    required: false,
    async start() {
      ctx.config.subscribe('wifi', 'change', onChange);
      try {
        await backend.syncAtStart(ctx.config.config.wifi.sta, ctx.config.config.system.power_save);
      } catch (error) {
        ctx.logger.error(`Wi-Fi start-up sync failed: ${(error as Error).message}`);
        ctx.services.set('wifi', { state: 'error', error: (error as Error).message });
      }
      refreshInfo();
      refreshTimer = setInterval(refreshInfo, INFO_REFRESH_MS);
    },
    async stop() {
      if (refreshTimer) clearInterval(refreshTimer);
      ctx.config.off('change', onChange);
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
