import { ConfigStore, type LoadOptions } from './config/config-store.js';
import { acquireStateLock, type StateLock } from './config/state-lock.js';
import { registerConfigFormats } from './config-formats.js';
import { createAppContext, daemonClock, type AppContext } from './context.js';
import { type Logger } from './log.js';
import { RecentLog } from './log-transports.js';
import { interfaceOfSource } from './meter/source.js';
import { markReady } from './device/update/ready-file.js';
import type { ListenerFailure } from './guarded-emitter.js';
import type { Service } from './service.js';
import { notifySystemd } from './systemd-notify.js';

import { buildServices } from './daemon-services.js';
/** The config formats and rules the outputs and the meter own (src/config-formats.ts). */

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
