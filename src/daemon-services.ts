/**
 * What the daemon is made of (docs/architecture.md#layers, wiring): its shared parts, every HTTP
 * route in the router's order, and its services in start order. src/daemon.ts runs them.
 */
import { type AppContext } from './context.js';
import { componentLogger } from './log.js';
import { RecentLog } from './log-transports.js';
import { registerBackupRoutes } from './http/routes/backup.js';
import { registerLogRoute } from './http/routes/log.js';
import { registerMqttDiscoveryRoutes } from './http/routes/mqtt-discovery.js';
import { registerSerialPortsRoute } from './http/routes/serial-ports.js';
import { createMeterInput } from './meter/meter-input.js';
import { createMetersInput } from './meter/meters-input.js';
import { CloudPush } from './device/cloud-push.js';
import { LogFile } from './device/log-file.js';
import { registerMaintenanceRoutes } from './http/routes/maintenance.js';
import { MdnsAnnouncer } from './device/mdns.js';
import { registerUpdateRoutes } from './http/routes/update.js';
import { createWifiBackend } from './device/wifi/backend.js';
import { assertPowerSaveAllowed, registerWifiRoutes } from './http/routes/wifi.js';
import { registerEthernetRoutes } from './http/routes/ethernet.js';
import { registerSdCardRoutes } from './http/routes/sdcard.js';
import { cachedWifiInfo, createNetworkOutput } from './device/network/network-output.js';
import { MeterProxy } from './device/meter-proxy.js';
import { ScriptRunner } from './device/scripting.js';
import { SdLogger } from './device/sd-logger.js';
import { csvRetentionJob, historyUpkeepJob, Housekeeping, logUpkeepJob } from './device/housekeeping.js';
import { registerCoreRoutes } from './http/routes/core.js';
import { registerMetersRoutes } from './http/routes/meters.js';
import { registerProbeRoute } from './http/routes/probe.js';
import { registerShellyRoutes, shellyRpcOf } from './http/routes/shelly.js';
import { ShellyWebSocket } from './device/shelly/websocket.js';
import { ShellyUdp } from './device/shelly/udp.js';
import { registerWebRoutes } from './web/routes.js';
import { Router } from './http/router.js';
import { ExportLimiter } from './export-limiter/limiter.js';
import { limiterMetrics } from './export-limiter/metrics.js';
import { peakForecastOf, showDecisionInPeakView } from './export-limiter/peak-link.js';
import { registerExportLimiterRoutes } from './http/routes/export-limiter.js';
import { PeakGuard } from './peak/peak-guard.js';
import { PushOutput } from './push/push-output.js';
import type { QuarterSource } from './push/push-client.js';
import { pushMetrics } from './push/push-metrics.js';
import { registerPushRoutes } from './http/routes/push.js';
import { registerQuartersCsvRoute } from './http/routes/quarters-csv.js';
import { registerPeakRoutes } from './http/routes/peak.js';
import { peakCapacityCharge, peakMetrics, peakVariables } from './peak/contributors.js';
import { ActionsOutput } from './actions/actions-output.js';
import { registerActionsRoutes } from './http/routes/actions.js';
import { registerModbusRoutes } from './http/routes/modbus.js';
import { createModbusRtuService } from './modbus/rtu-service.js';
import { createModbusService } from './modbus/service.js';
import { createMqttService } from './mqtt/publisher.js';
import { PeakCommandCounts, peakCommandMetrics } from './mqtt/peak-commands.js';
import { peakFeedOf } from './mqtt/peak-publisher.js';
import { LimiterCommandCounts, limiterCommandMetrics } from './mqtt/limiter-commands.js';
import { limiterFeedOf } from './mqtt/limiter-mqtt.js';
import { registerMqttRoutes } from './http/routes/mqtt.js';
import { registerMetricsRoute } from './http/routes/metrics.js';
import { registerHomewizardRoutes } from './http/routes/homewizard.js';
import { homewizardAnswers } from './http/routes/homewizard-answers.js';
import { HomewizardServer } from './http/routes/homewizard-server.js';
import { metricsSourcesOf } from './http/metrics-sources.js';
import { createHttpService } from './http/server.js';
import { HistoryRecorder } from './history/recorder.js';
import { MetersHistory } from './history/meters-history.js';
import { RecentPower } from './history/recent-power.js';
import { registerHistoryRoutes } from './http/routes/history.js';
import { ReadingLog } from './reading/reading-log.js';
import { PriceStore } from './prices/price-store.js';
import { registerPricesRoutes } from './http/routes/prices.js';
import { priceMetrics, priceVariables } from './prices/contributors.js';
import type { DeclaredOutput } from './output.js';
import { runOutput } from './output-runner.js';
import type { Service } from './service.js';

/**
 * The parts that routes, metrics and other parts share, built before any route: the price series
 * first (everything below reads `context.prices`), then the actions, the peak guard and the export
 * limiter that read each other, then the outputs that publish them.
 */
function buildParts(context: AppContext) {
  const log = (name: string) => componentLogger(context.logger, name);
  const wifi = createWifiBackend(context);
  // The day-ahead price series every consumer reads (docs/architecture.md#prices).
  const prices = new PriceStore(context, log('prices'));
  context.prices = prices;
  const history = new HistoryRecorder(context, log('history'));
  const recentPower = new RecentPower(context);
  const metersHistory = new MetersHistory(context, log('history'), history);
  const actions = new ActionsOutput(context, log('actions'));
  // The guard rebuilds its running value after a restart from the history's minutes.
  const peak = new PeakGuard(context, log('peak'), actions, (meter, from, to) =>
    Promise.resolve(metersHistory.recorderOf(meter)?.query('1m', from, to)),
  );
  actions.addVariableSource(peakVariables(() => peak));
  actions.addVariableSource(priceVariables(() => context.prices, context.now));
  // The limiter reads the guard's forecast: no "PV off" in a window predicted above the limit.
  const limiter = new ExportLimiter(context, log('export-limiter'), peakForecastOf(peak));
  showDecisionInPeakView(peak, limiter);
  const peakCommands = new PeakCommandCounts();
  const limiterCommands = new LimiterCommandCounts();
  // Every meter's extended 15-minute tier: the fleet push and MQTT's quarter records (docs/architecture.md#push).
  const quarterSource: QuarterSource = {
    meters: () => context.meters.list().map((meter) => ({ id: meter.id, role: meter.role })),
    quarters: (id, after, until, limit) =>
      Promise.resolve(metersHistory.recorderOf(id)?.quarters(after, until, limit)),
    minutes: (id, from, to) => Promise.resolve(metersHistory.recorderOf(id)?.query('1m', from, to)),
  };
  const push = new PushOutput(context, log('push'), quarterSource);
  const mqtt = createMqttService(
    context,
    (id) => void actions.call(id, 'Home Assistant button'),
    { feed: peakFeedOf(context, peak), counts: peakCommands },
    quarterSource,
    { feed: limiterFeedOf(limiter), counts: limiterCommands },
    push,
  );
  const shelly = shellyRpcOf(context);
  const shellyEnabled = () => context.config.config.services.emulate.shelly.enable;
  const shellyWebSocket = new ShellyWebSocket(shelly, shellyEnabled, log('shelly'), {
    refusals: context.refusals,
    clock: context.clock,
  });
  return {
    wifi,
    prices,
    history,
    recentPower,
    metersHistory,
    actions,
    peak,
    limiter,
    peakCommands,
    limiterCommands,
    push,
    mqtt,
    modbus: createModbusService(context, { peak, limiter }),
    modbusRtu: createModbusRtuService(context, peak, limiter),
    shelly,
    shellyWebSocket,
    homewizard: homewizardAnswers(context),
  };
}

type DaemonParts = ReturnType<typeof buildParts>;

/** Every HTTP route, in the order the router tries them; answers the core routes' live hub. */
function registerRoutes(router: Router, context: AppContext, parts: DaemonParts, recent: RecentLog) {
  const { wifi, metersHistory, peak, limiter, push } = parts;
  const core = registerCoreRoutes(router, context, {
    wifiInfo: () => cachedWifiInfo(context, wifi),
    ethernetInfo: () => wifi.ethernetInfo(),
    settingsGuard: async (changes) => {
      if (changes.has('system.power_save'))
        await assertPowerSaveAllowed(wifi, changes.get('system.power_save'));
    },
  });
  registerMetersRoutes(router, context, core);
  registerWifiRoutes(router, context, wifi);
  registerEthernetRoutes(router, context);
  registerSdCardRoutes(router, context);
  registerMaintenanceRoutes(router, context);
  registerUpdateRoutes(router, context);
  registerModbusRoutes(router, context);
  registerPricesRoutes(router, context, parts.prices);
  registerActionsRoutes(router, context, parts.actions);
  registerPeakRoutes(router, context, peak, core.page);
  registerExportLimiterRoutes(router, context, limiter, core.page);
  registerMqttRoutes(router, context, parts.mqtt);
  registerMqttDiscoveryRoutes(router, context);
  registerProbeRoute(router, context);
  registerShellyRoutes(router, context, parts.shelly);
  registerSerialPortsRoute(router, context);
  registerLogRoute(router, recent);
  registerBackupRoutes(router, context);
  registerWebRoutes(router, context);
  const recorderOf = (id: string) => metersHistory.recorderOf(id);
  registerHistoryRoutes(
    router,
    context,
    parts.history,
    parts.recentPower,
    recorderOf,
    peakCapacityCharge(() => peak),
  );
  registerQuartersCsvRoute(router, context, recorderOf);
  registerPushRoutes(router, push);
  // Every meter of the registry, read at each scrape; the peak guard adds its contributor here.
  const meters = () => context.meters.forMetrics();
  const metricsOutputs = {
    mqtt: parts.mqtt,
    modbus: parts.modbus,
    modbusRtu: parts.modbusRtu,
    live: core.live,
    actions: parts.actions,
    contributors: [
      peakMetrics(() => peak),
      peakCommandMetrics(parts.peakCommands),
      pushMetrics(() => push.status()),
      priceMetrics(() => context.prices, context.now),
      limiterMetrics(() => limiter.status()),
      limiterCommandMetrics(parts.limiterCommands),
    ],
  };
  registerMetricsRoute(router, context, metricsSourcesOf(context, meters, metricsOutputs));
  registerHomewizardRoutes(router, context, parts.homewizard);
  return core;
}

/**
 * Services in start order. The log file and reading log come first so they see everything; the
 * HTTP server is up before the meter opens; mDNS follows the others' states (HTTP, Modbus).
 */
export function buildServices(context: AppContext, recent: RecentLog): Service[] {
  const log = (name: string) => componentLogger(context.logger, name);
  const router = new Router();
  const parts = buildParts(context);
  const core = registerRoutes(router, context, parts, recent);
  const output = <Slice, Facts extends object>(configured: DeclaredOutput<Slice, Facts>) =>
    runOutput(context, configured);
  return [
    output(new LogFile(context)),
    new ReadingLog(context, log('reading')),
    output(parts.prices),
    parts.history,
    parts.metersHistory,
    parts.recentPower,
    createHttpService(context, router, { upgrades: parts.shellyWebSocket }),
    output(core.live),
    output(createMeterInput(context, log('meter'))),
    output(createMetersInput(context, log('meters'))),
    runOutput(context, parts.modbus),
    runOutput(context, parts.modbusRtu),
    runOutput(context, new ShellyUdp(parts.shelly, log('shelly'), context.clock)),
    runOutput(context, new HomewizardServer(parts.homewizard, log('homewizard'))),
    output(parts.mqtt),
    runOutput(context, new MeterProxy(context, log('proxy'))),
    output(new SdLogger(context, log('sd'))),
    output(new CloudPush(context, log('cloud'))),
    output(new ScriptRunner(context, log('script'))),
    output(parts.actions),
    output(parts.peak),
    output(parts.push),
    output(parts.limiter),
    runOutput(context, createNetworkOutput(context, parts.wifi)),
    runOutput(context, new MdnsAnnouncer(context, log('mdns'))),
    output(
      new Housekeeping(context, log('housekeeping'), [
        csvRetentionJob(context, log('housekeeping')),
        logUpkeepJob(context, log('housekeeping')),
        historyUpkeepJob(context, log('housekeeping')),
      ]),
    ),
  ];
}
