import type { Timer } from '../../clock.js';
import { isDeepStrictEqual } from 'node:util';
import type { EthernetSettings, WifiStationSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import type { DeclaredOutput, OutputStatus, StatusPort } from '../../output.js';
import { linkStatesOf, type LinkReport } from '../wifi/link-states.js';
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

/** The facts of the `network` status line (docs/architecture.md#wi-fi-and-ethernet). */
export type NetworkFacts = {
  /** The station's link as the backend reports it, and the link facts refreshed every 30 s. */
  wifi: LinkReport & { info?: WifiInfo; info_error?: string };
  /** The wired connection's link as the backend reports it. */
  ethernet: LinkReport;
};

export type NetworkStatus = OutputStatus<NetworkFacts>;

/**
 * The network settings as an output (docs/architecture.md#wi-fi-and-ethernet): whoever writes
 * `wifi.sta`, `eth` or `system.power_save` (the settings API, the Wi-Fi and Ethernet routes, a
 * backup restore, the add-on's options), the change reaches the backend here, and a backend that
 * fails makes the write answer 500 naming this output. The first apply brings the system in line
 * with the stored settings without disturbing a matching link. The output is the one writer of the
 * link states: the backend reports them (LinkStates) and they become the `wifi` and `ethernet`
 * facts of this output's line, with the Wi-Fi link facts (`wifi.info`) the template's wifi.*
 * variables read.
 */
export function createNetworkOutput(
  ctx: AppContext,
  backend: WifiBackend,
): DeclaredOutput<NetworkSlice, NetworkFacts> {
  const links = linkStatesOf(backend);
  let status: StatusPort<NetworkFacts> | undefined;
  let info: { info?: WifiInfo; info_error?: string } = {};
  let refreshTimer: Timer | undefined;
  let refreshing: Promise<void> | undefined;
  const publish = (): void => {
    status?.facts({
      wifi: { ...(links?.wifi ?? { link: 'unknown' }), ...info },
      ...(links?.ethernet ? { ethernet: links.ethernet } : {}),
    });
  };
  const refreshInfo = (): void => {
    if (refreshing) return;
    refreshing = backend
      .wifiInfo()
      .then(
        (facts) => {
          info = { info: facts };
        },
        (error: Error) => {
          info = { info_error: error.message };
        },
      )
      .then(publish)
      .finally(() => {
        refreshing = undefined;
      });
  };

  return {
    name: NETWORK_OUTPUT,
    watches: ['wifi.sta', 'eth', 'system.power_save'],
    select: (config) => ({ sta: config.wifi.sta, eth: config.eth, powerSave: config.system.power_save }),
    async apply({ slice }, previous) {
      if (!previous) {
        // The first apply: the system in line with the stored settings (the start-up sync applies
        // the power-save setting with the station profile). Both are tried; a failure rejects.
        const problems: string[] = [];
        try {
          await backend.syncEthernetAtStart(slice.eth, isDeepStrictEqual(slice.eth, defaultEthernet()));
        } catch (error) {
          problems.push(`Ethernet start-up sync failed: ${(error as Error).message}`);
        }
        try {
          await backend.syncAtStart(slice.sta, slice.powerSave);
        } catch (error) {
          problems.push(`Wi-Fi start-up sync failed: ${(error as Error).message}`);
        }
        if (problems.length > 0) throw new Error(problems.join('; '));
        return;
      }
      const before = previous.slice;
      if (!isDeepStrictEqual(before.eth, slice.eth)) await backend.applyEthernet(slice.eth);
      if (!isDeepStrictEqual(before.sta, slice.sta)) await backend.applyStation(slice.sta, slice.powerSave);
      else if (before.powerSave !== slice.powerSave) await backend.setPowerSave(slice.powerSave);
    },
    async start(port) {
      status = port;
      links?.follow(publish);
      publish();
      refreshInfo();
      refreshTimer = ctx.clock.setInterval(refreshInfo, INFO_REFRESH_MS);
    },
    async stop() {
      if (refreshTimer) ctx.clock.clearInterval(refreshTimer);
      refreshTimer = undefined;
      links?.follow(undefined);
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
  const info = (ctx.services.get(NETWORK_OUTPUT)?.wifi as { info?: WifiInfo } | undefined)?.info;
  return info ?? backend.wifiInfo();
}
