import type { AppContext } from '../../context.js';
import { registerLiveRoutes, type LiveHub, type LiveHubOptions } from './live.js';
import { registerMeterScalerRoutes } from './meter-scalers.js';
import { registerMeterSettingsRoutes } from './meter-settings.js';
import { registerOpenApiRoute } from './openapi.js';
import { registerPageStreamRoute, type PageStream } from './page-stream.js';
import type { ReportCache } from '../../reading/report-cache.js';
import { registerReportRoutes } from './report.js';
import type { Router } from '../router.js';
import { registerSettingsRoutes, type SettingsGuard } from './settings.js';
import { registerSystemRoutes } from './system.js';
import { registerVariablesRoutes } from './variables.js';
import { hostNetworkInfo, type WifiInfoSource } from '../../device/wifi/wifi-info.js';
import { kernelEthernetInfo, type EthernetInfo } from '../../device/wifi/ethernet-info.js';

export interface CoreRouteDeps {
  /** Wi-Fi link facts for /api/v1/system and the wifi.* variables; default: host interfaces, no ssid. */
  wifiInfo?: WifiInfoSource;
  /** The `ethernet` object of /api/v1/system; default: the kernel's view of network.ethernet_interface. */
  ethernetInfo?: () => Promise<EthernetInfo>;
  live?: LiveHubOptions;
  /** Device checks before a settings write is applied (Wi-Fi power saving vs. Ethernet). */
  settingsGuard?: SettingsGuard;
}

export interface CoreRoutes {
  live: LiveHub;
  /** The web interface's one stream; the peak and export limiter routes add their parts. */
  page: PageStream;
  report: ReportCache;
}

/**
 * The whatwatt Go's core endpoints and its compatibility endpoints: /api/v1/system, /report, /live,
 * /settings (GET, PUT, POST), /variables, /meter/settings (GET, PUT), and /openapi.json, which
 * describes every route of the router, those registered later by other modules included.
 */
export function registerCoreRoutes(router: Router, ctx: AppContext, deps: CoreRouteDeps = {}): CoreRoutes {
  const wifiInfo = deps.wifiInfo ?? hostNetworkInfo;
  const ethernetInfo =
    deps.ethernetInfo ??
    (() => kernelEthernetInfo('/sys/class/net', ctx.config.config.network.ethernet_interface));
  registerSystemRoutes(router, ctx, wifiInfo, ethernetInfo);
  const report = registerReportRoutes(router, ctx);
  const live = registerLiveRoutes(router, ctx, deps.live);
  const page = registerPageStreamRoute(router, ctx, live);
  registerSettingsRoutes(router, ctx, deps.settingsGuard);
  registerVariablesRoutes(router, ctx, wifiInfo);
  registerMeterSettingsRoutes(router, ctx);
  registerMeterScalerRoutes(router, ctx);
  registerOpenApiRoute(router, ctx);
  return { live, page, report };
}
