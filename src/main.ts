#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Clock } from './clock.js';
import type { Daemon, DaemonOptions } from './daemon.js';
import type { Logger } from './log.js';
import { runParseCli } from './meter/parse-cli.js';
import { VERSION } from './version.js';

// The daemon and the log are loaded when the daemon runs: `--help`, `--version` and `parse` start
// in a fraction of the time (loading the daemon's modules took about 1 s of CPU on each call).

const USAGE = `Usage:
  meter-gateway [--config FILE] [--state-dir DIR]   run the daemon
  meter-gateway parse FILE [--protocol auto|dsmr|sml|d0] [--all]
                                                    print the report JSON of a capture
  meter-gateway probe DEVICE                        detect protocol and line settings of a serial port
  meter-gateway --help | --version

Every config key can be overridden by METER_GATEWAY_<PATH> (e.g. METER_GATEWAY_HTTP_PORT=8081).`;

/**
 * Shutdown must finish within this time (SIGTERM exits 0 within 5 s, well inside systemd's default stop
 * timeout).
 */
const STOP_DEADLINE_MS = 4500;

/**
 * sysexits(3) EX_CONFIG: the configuration cannot work here (the HTTP port is taken or not
 * allowed). Not a fault of the release: the update launcher never rolls back for it, and the
 * unit's RestartPreventExitStatus stops systemd from retrying until the port is changed.
 */
const EXIT_CONFIG = 78;

/** The hint for an HTTP port that cannot be listened on, or undefined for any other failure. */
function httpListenFailure(error: unknown): string | undefined {
  if (!(error instanceof Error) || !error.message.startsWith('http failed to start')) return undefined;
  const cause = error.cause as NodeJS.ErrnoException & { port?: number; address?: string };
  if (cause?.code !== 'EADDRINUSE' && cause?.code !== 'EACCES') return undefined;
  const port = cause.port ?? 0;
  const problem =
    cause.code === 'EADDRINUSE'
      ? `HTTP port ${port} is in use by another program`
      : `HTTP port ${port} is not allowed for this user (ports below 1024 need CAP_NET_BIND_SERVICE)`;
  const other = port > 0 && port < 65535 ? port + 1 : 8080;
  return `${problem}; choose another port: METER_GATEWAY_HTTP_PORT=${other} in the environment, http.port in the config file, or on a Raspberry Pi install 'sudo systemd/install.sh --http-port ${other}'`;
}

/** sysexits(3) EX_TEMPFAIL: the state folder is locked by another daemon (try again later). */
const EXIT_STATE_LOCKED = 75;

function usageError(message: string): never {
  process.stderr.write(`meter-gateway: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function runDaemon(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { config: { type: 'string' }, 'state-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    usageError((error as Error).message);
  }
  // Signal handlers first: a SIGTERM that arrives while starting (or right after the "running" line)
  // must stop the daemon cleanly, not kill it with the default action.
  const stopSignal = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const daemon = await createDaemon({
    ...(parsed.values.config !== undefined ? { configFile: parsed.values.config } : {}),
    ...(parsed.values['state-dir'] !== undefined ? { stateDir: parsed.values['state-dir'] } : {}),
  });
  if (typeof daemon === 'number') return daemon;
  const logger = daemon.context.logger;
  installCrashHandlers(logger);
  try {
    await daemon.start();
  } catch (error) {
    return startFailed(logger, error);
  }
  return serveUntilStopped(daemon, stopSignal);
}

/** The daemon of these options, or the exit status when it cannot be created (a line on stderr says why). */
async function createDaemon(options: DaemonOptions): Promise<Daemon | number> {
  const [daemonModule, { ConfigError }, { StateLockError }, { SourceError }] = await Promise.all([
    import('./daemon.js'),
    import('./config/config-store.js'),
    import('./config/state-lock.js'),
    import('./meter/source.js'),
  ]);
  try {
    return daemonModule.Daemon.create(options);
  } catch (error) {
    if (error instanceof StateLockError) {
      // Another daemon runs on this folder: nothing was opened; EX_TEMPFAIL, so a supervisor may
      // try again once the other one is gone, and the launcher never counts it against a release.
      process.stderr.write(`meter-gateway: ${error.message}\n`);
      return EXIT_STATE_LOCKED;
    }
    const kind =
      error instanceof ConfigError || error instanceof SourceError
        ? 'configuration error'
        : 'start-up failed';
    process.stderr.write(`meter-gateway: ${kind}: ${(error as Error).message}\n`);
    return 1;
  }
}

/** daemon.start() failed and has stopped what it started: the original error is the last line. */
function startFailed(logger: Logger, error: unknown): Promise<never> {
  const cause = (error as Error).cause;
  const detail =
    cause instanceof Error && !(error as Error).message.includes(cause.message) ? ` (${cause.message})` : '';
  logger.error(`start-up failed: ${(error as Error).message}${detail}`);
  const taken = httpListenFailure(error);
  if (taken) {
    logger.error(taken);
    return exitAfterFlush(logger, EXIT_CONFIG);
  }
  return exitAfterFlush(logger, 1);
}

/** Runs the started daemon until a signal or a restart request, then stops it within the deadline. */
async function serveUntilStopped(daemon: Daemon, stopSignal: Promise<string>): Promise<never> {
  const { startWatchdog } = await import('./systemd-notify.js');
  const logger = daemon.context.logger;
  const clock = daemon.context.clock;
  const watchdog = startWatchdog(clock);
  const http = daemon.context.services.get('http');
  const where = http?.state === 'running' ? ` (HTTP on ${String(http.host)}:${String(http.port)})` : '';
  logger.info(`meter-gateway ${VERSION} running${where}`);
  const reason = await Promise.race([
    stopSignal,
    daemon.restartRequested.then((why) => `restart requested: ${why}`),
  ]);
  logger.info(`stopping (${reason})`);
  if (watchdog) clock.clearInterval(watchdog);
  const deadline = clock.setTimeout(() => {
    logger.error('services did not stop in time, exiting anyway');
    void exitAfterFlush(logger, 1, clock);
  }, STOP_DEADLINE_MS);
  deadline.unref();
  await daemon.stop();
  clock.clearTimeout(deadline);
  logger.info('stopped');
  return exitAfterFlush(logger, 0);
}

/**
 * Flushes the log and ends the process: the exit waits until the last lines (often its reason) are
 * in the journal and the log file; a timer of a service that did not clean up cannot keep it up.
 * `clock` times the flush's deadline where the daemon's clock runs.
 */
async function exitAfterFlush(logger: Logger, code: number, clock?: Clock): Promise<never> {
  const { flushLogger } = await import('./log.js');
  await flushLogger(logger, undefined, clock);
  process.exit(code);
}

/** An uncaught error is logged and exits non-zero so systemd restarts the daemon. */
function installCrashHandlers(logger: Logger): void {
  const crash = (error: unknown) => {
    logger.error(
      `uncaught error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    void exitAfterFlush(logger, 70);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === 'parse') return runParseCli(rest, usageError);
  if (first === 'probe') {
    const { runProbeCli } = await import('./meter/probe/probe-cli.js');
    return runProbeCli(rest);
  }
  if (first !== undefined && !first.startsWith('-')) usageError(`unknown command '${first}'`);
  return runDaemon(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const { createLogger, flushLogger } = await import('./log.js');
    const logger = createLogger('error');
    logger.error(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await flushLogger(logger);
    process.exit(1);
  },
);
