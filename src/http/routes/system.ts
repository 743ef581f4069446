import { contract } from '../contract-ref.js';
import { networkInterfaces } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext, ServiceStatus } from '../../context.js';
import { detectInstallRoot } from '../../device/update/release-layout.js';
import { localDateTime } from '../../reading/time-format.js';
import { meterObject } from '../../reading/report.js';
import type { SystemMeterView } from '../../contracts/reading.js';
import { sendJson } from '../respond.js';
import { HEALTH_PATH, healthOfContext } from '../health.js';
import type { Router } from '../router.js';
import type { WifiInfoSource } from '../../device/wifi/wifi-info.js';
import type { AddressView, RuntimeView, SystemView } from '../../contracts/system.js';
import { VERSION } from '../../version.js';
import type { EthernetInfo } from '../../device/wifi/ethernet-info.js';
import { sdCardInfo, sdCardRoot, type SdCardInfo } from '../../device/sd-card.js';

/**
 * GET /api/v1/system: device identity, meter state, Wi-Fi and Ethernet links, the SD card folder,
 * the states the running services reported, the meter input counters, and (beside the device's
 * fields) `runtime`, this process. Built per request from live values.
 */
export function systemInfo(
  ctx: AppContext,
  wifi: Awaited<ReturnType<WifiInfoSource>>,
  network: { ethernet: EthernetInfo; sdCard: SdCardInfo },
): SystemView {
  const config = ctx.config.config;
  const now = ctx.now();
  const [date, time] = localDateTime(new Date(now)).split('T') as [string, string];
  const [bootDate, bootTime] = localDateTime(new Date(ctx.system.bootTime)).split('T') as [string, string];
  const release = releaseOf();
  return {
    device: {
      name: config.system.name,
      host_name: config.system.host_name,
      id: ctx.system.id,
      model: ctx.system.model,
      firmware: ctx.system.firmware,
      // The device's build id is its firmware commit; here the installed release, or "source".
      build: release ?? 'source',
      upgrade_capable: release !== undefined,
      date,
      time,
      boot_id: ctx.system.bootId,
      time_since_boot: Math.round((now - ctx.system.bootTime) / 1000),
      last_reboot: { date: bootDate, time: bootTime },
      license: { type: config.license.type, activation_date: config.license.activation_date },
    },
    meter: systemMeter(ctx),
    // The device names the netmask `mask` (what the Homey and GridLoad apps read).
    wifi: wifi.netmask !== undefined && wifi.mask === undefined ? { ...wifi, mask: wifi.netmask } : wifi,
    ethernet: network.ethernet,
    sd_card: network.sdCard,
    services: withBerryStatus(ctx.services.snapshot()),
    counters: { ...ctx.store.counters, reports: ctx.store.reportId },
    // Not a field of the device: this process, for the web page's Info view.
    runtime: runtimeInfo(),
    // Not a field of the device: whether a password is stored (the page's first-run hint).
    access: {
      protection: config.system.protection,
      password_set: config.system.password !== '',
      // Home Assistant add-on: the setting paths its options lock (docs/architecture.md#add-on-options).
      addon: config.addon.enable,
      locked: [...ctx.config.locked],
    },
    // Not a field of the device: which enabled output failed to listen (docs/architecture.md#health).
    health: healthOfContext(ctx),
  };
}

/** The process: version, uptime, memory and the host's addresses (loopback left out). */
export function runtimeInfo(): RuntimeView {
  const memory = process.memoryUsage();
  const addresses: AddressView[] = [];
  for (const [name, list] of Object.entries(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (!entry.internal) addresses.push({ interface: name, address: entry.address, family: entry.family });
    }
  }
  return {
    version: VERSION,
    node: process.version,
    uptime_s: Math.round(process.uptime()),
    memory: {
      rss_bytes: memory.rss,
      heap_used_bytes: memory.heapUsed,
      heap_total_bytes: memory.heapTotal,
      external_bytes: memory.external,
    },
    addresses,
  };
}

/** The id of the release this code runs from (releases/<id>/dist/src/http), when it is one. */
function releaseOf(): string | undefined {
  const root = detectInstallRoot();
  if (root === undefined) return undefined;
  const here = fileURLToPath(import.meta.url);
  const inside = relative(join(root, 'releases'), here).split(sep)[0];
  return inside && !inside.startsWith('..') ? inside : undefined;
}

/**
 * The meter object of /api/v1/system: the report's meter fields plus the device's own
 * `manufacturer` (vendor name, else the FLAG prefix), `type` (the logical device name, else the
 * model text), `report_interval` (measured seconds between readings), `tariff`, and the meter's
 * own `date`/`time` when it sends a timestamp.
 */
function systemMeter(ctx: AppContext): SystemMeterView {
  const meter = ctx.store.meter;
  const { identity } = meter;
  const out: SystemMeterView = { ...meterObject(meter) };
  const manufacturer = identity.vendor ?? identity.prefix;
  if (manufacturer !== undefined) out.manufacturer = manufacturer;
  const type = identity.logicalName ?? identity.model;
  if (type !== undefined) out.type = type;
  if (ctx.store.interval !== undefined) out.report_interval = ctx.store.interval;
  const reading = ctx.store.latest;
  if (reading?.tariff !== undefined) out.tariff = reading.tariff;
  if (reading?.meterTime !== undefined) {
    out.date = reading.meterTime.slice(0, 10);
    out.time = reading.meterTime.slice(11, 19);
  }
  return out;
}

/** The real device's script engine state, in its own words (not an output's state). */
const BERRY_STATES = ['IDLE', 'RUNNING', 'ERROR'] as const;
type BerryState = (typeof BERRY_STATES)[number];
type BerryStatus = {
  state: BerryState;
  execution_status: { state: BerryState };
};

/** services.berry.execution_status.state (IDLE, RUNNING, ERROR) from the scripting output's fact `script`. */
function withBerryStatus(
  services: Record<string, ServiceStatus>,
): Record<string, ServiceStatus | BerryStatus> {
  const scripting = services.scripting?.script;
  const state = BERRY_STATES.find((word) => word === scripting) ?? 'IDLE';
  return { ...services, berry: { state, execution_status: { state } } };
}

export function registerSystemRoutes(
  router: Router,
  ctx: AppContext,
  wifiInfo: WifiInfoSource,
  ethernetInfo: () => Promise<EthernetInfo>,
): void {
  router.add(
    'GET',
    HEALTH_PATH,
    (_request, response) => {
      const health = healthOfContext(ctx);
      sendJson(response, health.status === 'failing' ? 503 : 200, health);
    },
    {
      doc: {
        summary:
          'Health: which enabled output failed to listen, how old the latest meter reading is (no password from this host)',
        responses: {
          200: {
            description: 'healthy (ok, or degraded: the meter reading is stale)',
            schema: contract('HealthSchema'),
          },
          503: {
            description: 'an enabled output failed, or no meter reading for health.max_reading_age_s',
            schema: contract('HealthSchema'),
          },
        },
      },
    },
  );
  router.add(
    'GET',
    '/api/v1/system',
    async (_request, response) => {
      const [wifi, ethernet, sdCard] = await Promise.all([
        wifiInfo(),
        ethernetInfo(),
        sdCardInfo(sdCardRoot(ctx.config.config)),
      ]);
      sendJson(response, 200, systemInfo(ctx, wifi, { ethernet, sdCard }));
    },
    {
      doc: {
        summary: 'System information',
        responses: { 200: { description: 'system information', schema: contract('SystemViewSchema') } },
      },
    },
  );
}
