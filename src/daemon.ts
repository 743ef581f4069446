import { randomUUID } from 'node:crypto';
import { ConfigStore, type LoadOptions } from './config/config-store.js';
import { ServiceStates, type AppContext } from './context.js';
import { componentLogger, createLogger, type Logger } from './log.js';
import { createMeterInput } from './meter/meter-input.js';
import { interfaceOfSource } from './meter/source.js';
import { CloudPush } from './device/cloud-push.js';
import { LogFile } from './device/log-file.js';
import { registerMaintenanceRoutes } from './device/maintenance/routes.js';
import { MdnsAnnouncer } from './device/mdns.js';
import { markReady } from './device/update/ready-file.js';
import { registerUpdateRoutes } from './device/update/routes.js';
import { createWifiBackend } from './device/wifi/backend.js';
import { assertPowerSaveAllowed, registerWifiRoutes } from './device/wifi/routes.js';
import { cachedWifiInfo, createWifiService } from './device/wifi/service.js';
import { MeterProxy } from './device/meter-proxy.js';
import { ScriptRunner } from './device/scripting.js';
import { SdLogger } from './device/sd-logger.js';
import { csvRetentionJob, Housekeeping } from './device/housekeeping.js';
import { registerCoreRoutes } from './http/core-routes.js';
import { registerProbeRoute } from './meter/probe/probe-route.js';
import { registerWebRoutes } from './web/routes.js';
import { Router } from './http/router.js';
import { registerModbusRoutes } from './modbus/routes.js';
import { createModbusRtuService } from './modbus/rtu-service.js';
import { createModbusService } from './modbus/service.js';
import { createMqttService } from './mqtt/publisher.js';
import { registerMqttRoutes } from './mqtt/routes.js';
import { createHttpService } from './http/server.js';
import { HistoryRecorder } from './history/recorder.js';
import { registerHistoryRoutes } from './history/routes.js';
import { ReadingLog } from './reading/reading-log.js';
import { ReadingStore } from './reading/store.js';
import type { ListenerFailure } from './guarded-emitter.js';
import type { Service } from './service.js';
import { readSystemId, resolveSystemId } from './system-id.js';
import { notifySystemd } from './systemd-notify.js';
import { VERSION } from './version.js';

export interface DaemonOptions extends LoadOptions {
  /** Replaces the logger (tests). */
  logger?: Logger;
}

/**
 * The running daemon: context plus services in start order. Stop runs in reverse order; every
 * service stops on its own even when another one fails (brief, style 5).
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
    const config = ConfigStore.load(options);
    const logger = options.logger ?? createLogger(config.config.log.level);
    for (const problem of config.problems) {
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
    const meterConfig = config.config.meter;
    const store = new ReadingStore({
      staleAfterMs: meterConfig.timeout * 1000,
      meterInterface: interfaceOfSource(meterConfig.source),
    });
    let requestRestart: (reason: string) => void = () => undefined;
    const restartRequested = new Promise<string>((resolve) => {
      requestRestart = resolve;
    });
    const context: AppContext = {
      config,
      store,
      logger,
      system: {
        id: systemIdOf(config),
        model: config.config.device.model,
        firmware: VERSION,
        bootId: randomUUID(),
        bootTime: Date.now(),
      },
      services: new ServiceStates(),
      now: Date.now,
      requestRestart: (reason) => requestRestart(reason),
    };
    reportListenerFailures(context);
    return new Daemon(context, buildServices(context), restartRequested);
  }

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
    })();
    return this.stopping;
  }
}

/**
 * The system id (system-id.ts). A state directory that cannot be written gets the hardware-derived
 * id for this run; start() then fails on that directory with its own error.
 */
function systemIdOf(config: ConfigStore): string {
  try {
    config.stateDirectory.ensure();
    return resolveSystemId(config.config.device.id, config.config.paths.state);
  } catch {
    return config.config.device.id || readSystemId();
  }
}

/**
 * A listener that throws on a reading or a settings change fails alone (brief, style 5): it is
 * logged and counted per output (shown in /api/v1/system services), the others still get the event.
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
function buildServices(context: AppContext): Service[] {
  const log = (name: string) => componentLogger(context.logger, name);
  const router = new Router();
  const wifi = createWifiBackend(context);
  registerCoreRoutes(router, context, {
    wifiInfo: () => cachedWifiInfo(context, wifi),
    settingsGuard: async (changes) => {
      if (changes.has('system.power_save'))
        await assertPowerSaveAllowed(wifi, changes.get('system.power_save'));
    },
  });
  registerWifiRoutes(router, context, wifi);
  registerMaintenanceRoutes(router, context);
  registerUpdateRoutes(router, context);
  registerModbusRoutes(router, context);
  const mqtt = createMqttService(context);
  registerMqttRoutes(router, context, mqtt);
  registerProbeRoute(router, context);
  registerWebRoutes(router, context);
  const history = new HistoryRecorder(context, log('history'));
  registerHistoryRoutes(router, context, history);
  return [
    new LogFile(context),
    new ReadingLog(context, log('reading')),
    history,
    createHttpService(context, router),
    createMeterInput(context, log('meter')),
    createModbusService(context),
    createModbusRtuService(context),
    mqtt,
    new MeterProxy(context, log('proxy')),
    new SdLogger(context, log('sd')),
    new CloudPush(context, log('cloud')),
    new ScriptRunner(context, log('script')),
    createWifiService(context, wifi),
    new MdnsAnnouncer(context, log('mdns')),
    new Housekeeping(context, log('housekeeping'), [csvRetentionJob(context, log('housekeeping'))]),
  ];
}
