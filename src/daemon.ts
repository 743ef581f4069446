import { ConfigStore, type LoadOptions } from './config/config-store.js';
import { acquireStateLock, type StateLock } from './config/state-lock.js';
import { registerConfigFormats } from './config-formats.js';
import { createAppContext, daemonClock, type AppContext } from './context.js';
import { componentLogger, type Logger } from './log.js';
import { RecentLog } from './log-transports.js';
import { registerBackupRoutes } from './http/routes/backup.js';
import { registerLogRoute } from './http/routes/log.js';
import { registerMqttDiscoveryRoutes } from './http/routes/mqtt-discovery.js';
import { registerSerialPortsRoute } from './http/routes/serial-ports.js';
import { createMeterInput } from './meter/meter-input.js';
import { createMetersInput } from './meter/meters-input.js';
import { interfaceOfSource } from './meter/source.js';
import { CloudPush } from './device/cloud-push.js';
import { LogFile } from './device/log-file.js';
import { registerMaintenanceRoutes } from './http/routes/maintenance.js';
import { MdnsAnnouncer } from './device/mdns.js';
import { markReady } from './device/update/ready-file.js';
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
import { HomewizardServer, homewizardAnswers, registerHomewizardRoutes } from './http/routes/homewizard.js';
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
import type { ListenerFailure } from './guarded-emitter.js';
import { runOutput, type DeclaredOutput } from './output.js';
import type { Service } from './service.js';
import { notifySystemd } from './systemd-notify.js';

/** The config formats and rules the outputs and the meter own (src/config-formats.ts). */
export { registerConfigFormats };

export interface DaemonOptions extends LoadOptions {
  /** Replaces the logger (tests). */
  logger?: Logger;
}

/**
 * The running daemon: context plus services in start order. Stop runs in reverse order; every
 * service stops on its own even when another one fails (docs/architecture.md#output-contract).
 */
export class Daemon {
  private readonly started: Service[] = [];
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly context: AppContext,
    private readonly services: Service[],
    /** Resolves with a reason when a component asked for a restart (reboot, firmware switch). */
    readonly restartRequested: Promise<string>,
  ) {}

  static create(options: DaemonOptions): Daemon {
    registerConfigFormats();
    let lock: StateLock | undefined;
    const config = ConfigStore.load({
      ...options,
      beforeStateDir: (stateDir) => {
        lock = holdStateLock(stateDir);
      },
    });
    let requestRestart: (reason: string) => void = () => undefined;
    const restartRequested = new Promise<string>((resolve) => {
      requestRestart = resolve;
    });
    const context = createAppContext({
      config,
      logger: options.logger,
      meterInterface: interfaceOfSource(config.config.meter.source),
      requestRestart: (reason) => requestRestart(reason),
      // The test clock offset from the environment the config was read from (main: the process's).
      now: daemonClock(options.env),
    });
    // The web page's log view: the latest lines in memory, from the first one on.
    const recent = new RecentLog();
    context.logger.addTransport(recent);
    reportConfigRecovery(context);
    reportListenerFailures(context);
    const daemon = new Daemon(context, buildServices(context, recent), restartRequested);
    daemon.lock = lock;
    return daemon;
  }

  /** The state folder's lock (docs/architecture.md#state-folder-lock), released when stopped. */
  private lock: StateLock | undefined;

  /**
   * Starts every service in order; a required one that fails aborts start-up (exit 1 in main).
   * Whatever failed, the services already started are stopped before the error is passed on, so
   * nothing keeps running (or logging) behind a failed start.
   */
  async start(): Promise<void> {
    try {
      for (const service of this.services) await this.startOne(service);
      // The launcher's READY signal when it runs without systemd (firmware update probation).
      this.context.config.stateDirectory.ensure();
      markReady(this.context.config.config.paths.state);
    } catch (error) {
      const names = this.started.map((service) => service.name).join(', ');
      this.context.logger.warn(`start-up failed; stopping what had started: ${names || 'nothing'}`);
      await this.stop();
      throw error;
    }
    notifySystemd('READY=1', `STATUS=running, meter ${this.context.store.meter.status}`);
  }

  private async startOne(service: Service): Promise<void> {
    try {
      await service.start();
      this.started.push(service);
    } catch (error) {
      const message = `${service.name} failed to start: ${(error as Error).message}`;
      if (service.required) throw new Error(message, { cause: error });
      this.context.logger.error(`${message} (continuing without it)`);
    }
  }

  async stop(): Promise<void> {
    this.stopping ??= (async () => {
      notifySystemd('STOPPING=1');
      for (const service of this.started.reverse()) {
        try {
          await service.stop();
        } catch (error) {
          this.context.logger.error(`${service.name} failed to stop cleanly: ${(error as Error).message}`);
        }
      }
      this.started.length = 0;
      this.context.store.close();
      this.lock?.release();
    })();
    return this.stopping;
  }
}

/** Locks this process holds; the exit releases them, however the process ends short of SIGKILL. */
const heldLocks = new Set<StateLock>();

/** Takes the state folder's lock before anything in it is opened (docs/architecture.md#state-folder-lock). */
function holdStateLock(stateDir: string): StateLock {
  const lock = acquireStateLock(stateDir);
  if (heldLocks.size === 0) process.once('exit', () => heldLocks.forEach((held) => held.release()));
  heldLocks.add(lock);
  return lock;
}

/** What start-up found in the state directory, and a protection setting that locks everyone out. */
function reportConfigRecovery({ config, logger, refusals }: AppContext): void {
  for (const problem of config.problems) {
    refusals.add('state_file_corrupt');
    logger.warn(
      `state file ${problem.file}.json was corrupt (${problem.reason}); moved to ${problem.movedTo}, defaults used`,
    );
  }
  const { removedTemp, replayed } = config.recovery;
  if (removedTemp.length > 0)
    logger.warn(
      `removed ${removedTemp.length} temp file(s) of an interrupted write: ${removedTemp.join(', ')}`,
    );
  if (replayed.length > 0)
    logger.warn(`completed an interrupted settings write: ${replayed.map((f) => `${f}.json`).join(', ')}`);
  if (config.config.system.protection && config.config.system.password === '') {
    logger.error(
      'system.protection is on but no password is stored (secrets.json missing, empty or corrupt): every HTTP request answers 401 until a password is set, e.g. with METER_GATEWAY_SYSTEM_PASSWORD',
    );
  }
}

/**
 * A listener that throws on a reading or a settings change fails alone (docs/architecture.md#data-flow): it
 * is logged and counted per output (shown in /api/v1/system services), the others still get the event.
 */
function reportListenerFailures(context: AppContext): void {
  const report = (failure: ListenerFailure) => {
    context.services.countFailure(failure.owner);
    context.logger.error(`${failure.owner} failed on ${failure.event}: ${failure.message}`);
  };
  context.store.onListenerFailure = report;
  context.config.onListenerFailure = report;
}

/**
 * Services in start order. The log file and reading log come first so they see everything; the
 * HTTP server is up before the meter opens; mDNS follows the others' states (HTTP, Modbus).
 */
function buildServices(context: AppContext, recent: RecentLog): Service[] {
  const log = (name: string) => componentLogger(context.logger, name);
  const router = new Router();
  const wifi = createWifiBackend(context);
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
  // The day-ahead price series every consumer reads (docs/architecture.md#prices).
  const prices = new PriceStore(context, log('prices'));
  context.prices = prices;
  registerPricesRoutes(router, context, prices);
  const actions = new ActionsOutput(context, log('actions'));
  registerActionsRoutes(router, context, actions);
  // The guard rebuilds its running value after a restart from the history's minutes.
  const peak = new PeakGuard(context, log('peak'), actions, (meter, from, to) =>
    Promise.resolve(metersHistory.recorderOf(meter)?.query('1m', from, to)),
  );
  registerPeakRoutes(router, context, peak);
  actions.addVariableSource(peakVariables(() => peak));
  actions.addVariableSource(priceVariables(() => context.prices, context.now));
  // The limiter reads the guard's forecast: no "PV off" in a window predicted above the limit.
  const limiter = new ExportLimiter(context, log('export-limiter'), peakForecastOf(peak));
  showDecisionInPeakView(peak, limiter);
  registerExportLimiterRoutes(router, context, limiter);
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
  registerMqttRoutes(router, context, mqtt);
  registerMqttDiscoveryRoutes(router, context);
  registerProbeRoute(router, context);
  const shelly = shellyRpcOf(context);
  registerShellyRoutes(router, context, shelly);
  const shellyEnabled = () => context.config.config.services.emulate.shelly.enable;
  const shellyWebSocket = new ShellyWebSocket(shelly, shellyEnabled, log('shelly'), {
    refusals: context.refusals,
    clock: context.clock,
  });
  registerSerialPortsRoute(router, context);
  registerLogRoute(router, recent);
  registerBackupRoutes(router, context);
  registerWebRoutes(router, context);
  const history = new HistoryRecorder(context, log('history'));
  const recentPower = new RecentPower(context);
  const metersHistory = new MetersHistory(context, log('history'), history);
  registerHistoryRoutes(
    router,
    context,
    history,
    recentPower,
    (id) => metersHistory.recorderOf(id),
    peakCapacityCharge(() => peak),
  );
  registerQuartersCsvRoute(router, context, (id) => metersHistory.recorderOf(id));
  registerPushRoutes(router, push);
  const modbus = createModbusService(context, { peak, limiter });
  const modbusRtu = createModbusRtuService(context, peak, limiter);
  // Every meter of the registry, read at each scrape; the peak guard adds its contributor here.
  const meters = () => context.meters.forMetrics();
  const metricsOutputs = {
    mqtt,
    modbus,
    modbusRtu,
    live: core.live,
    actions,
    contributors: [
      peakMetrics(() => peak),
      peakCommandMetrics(peakCommands),
      pushMetrics(() => push.status()),
      priceMetrics(() => context.prices, context.now),
      limiterMetrics(() => limiter.status()),
      limiterCommandMetrics(limiterCommands),
    ],
  };
  registerMetricsRoute(router, context, metricsSourcesOf(context, meters, metricsOutputs));
  const homewizard = homewizardAnswers(context);
  registerHomewizardRoutes(router, context, homewizard);
  const output = <Slice, Facts extends object>(configured: DeclaredOutput<Slice, Facts>) =>
    runOutput(context, configured);
  return [
    output(new LogFile(context)),
    new ReadingLog(context, log('reading')),
    output(prices),
    history,
    metersHistory,
    recentPower,
    createHttpService(context, router, { upgrades: shellyWebSocket }),
    output(core.live),
    output(createMeterInput(context, log('meter'))),
    output(createMetersInput(context, log('meters'))),
    runOutput(context, modbus),
    runOutput(context, modbusRtu),
    runOutput(context, new ShellyUdp(shelly, log('shelly'), context.clock)),
    runOutput(context, new HomewizardServer(homewizard, log('homewizard'))),
    output(mqtt),
    runOutput(context, new MeterProxy(context, log('proxy'))),
    output(new SdLogger(context, log('sd'))),
    output(new CloudPush(context, log('cloud'))),
    output(new ScriptRunner(context, log('script'))),
    output(actions),
    output(peak),
    output(push),
    output(limiter),
    runOutput(context, createNetworkOutput(context, wifi)),
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
