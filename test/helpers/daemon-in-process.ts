import { join } from 'node:path';
import { Daemon } from '../../src/daemon.js';
import { repoRoot } from './environment.js';
import { jsonLine, linesLogger } from './log-lines.js';

/**
 * The daemon started in the test's own process, as main.ts starts it (Daemon.create, start, stop),
 * on the same config and environment as startDaemonProcess (test/helpers/daemon-process.ts) gives
 * its child: for tests that only talk to the daemon over the network. A daemon process costs a node
 * start and a load of every module of the daemon; in the test's process these are loaded once
 * (docs/architecture.md#test-tiers). A test of a kill, a restart, an exit code, a signal or of what
 * only a process's own environment changes starts the child process instead.
 */
export interface InProcessDaemon {
  daemon: Daemon;
  baseUrl: string;
  /** Every log line so far (JSON, message and fields), as the child's output would hold them. */
  output: () => string;
  /** Stops every service, as SIGTERM does in main.ts; a second call waits for the first. */
  stop(): Promise<void>;
}

/**
 * Starts the daemon in this process on config/default.json (simulator) and `state`, HTTP on a free
 * loopback port, no mDNS; `env` adds or overrides METER_GATEWAY_* variables (and the test clock
 * offset, docs/architecture.md#test-clock-offset). Resolves once it listens.
 */
export async function startDaemonInProcess(
  state: string,
  env: Record<string, string> = {},
): Promise<InProcessDaemon> {
  const lines: string[] = [];
  const daemon = Daemon.create({
    configFile: join(repoRoot, 'config', 'default.json'),
    stateDir: state,
    env: {
      ...process.env,
      METER_GATEWAY_HTTP_PORT: '0',
      METER_GATEWAY_HTTP_HOST: '127.0.0.1',
      METER_GATEWAY_SERVICES_BROADCAST: 'false',
      ...env,
    },
    logger: linesLogger(lines, 'info', jsonLine),
  });
  await daemon.start();
  const http = daemon.context.services.get('http') as unknown as { port: number } | undefined;
  if (!http?.port) {
    await daemon.stop();
    throw new Error(`the daemon does not listen:\n${lines.join('\n')}`);
  }
  return {
    daemon,
    baseUrl: `http://127.0.0.1:${http.port}`,
    output: () => lines.join('\n'),
    stop: () => daemon.stop(),
  };
}
