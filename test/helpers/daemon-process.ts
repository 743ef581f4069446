import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { cliCommand, repoRoot } from './environment.js';
import { waitFor } from './wait.js';

export interface DaemonProcess {
  child: ChildProcess;
  /** Everything the daemon wrote to stdout and stderr so far. */
  output: () => string;
  /** Exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * The daemon CLI as a child process on config/default.json (simulator) and `state`, HTTP on a free
 * loopback port, no mDNS; `env` adds or overrides METER_GATEWAY_* variables.
 */
export function startDaemon(state: string, env: Record<string, string> = {}): DaemonProcess {
  const { command, args } = cliCommand();
  const child = spawn(
    command,
    [...args, '--config', join(repoRoot, 'config', 'default.json'), '--state-dir', state],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        METER_GATEWAY_HTTP_PORT: '0',
        METER_GATEWAY_HTTP_HOST: '127.0.0.1',
        METER_GATEWAY_SERVICES_BROADCAST: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** A started daemon that listens: its base URL and a stop that waits for the exit. */
export interface ListeningDaemon extends DaemonProcess {
  baseUrl: string;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/**
 * Starts the daemon (see startDaemon) and waits until it listens; the port comes from its log line.
 * A daemon that does not listen in time is killed before the error is thrown.
 */
export async function startDaemonProcess(
  state: string,
  env: Record<string, string> = {},
  /** How long to wait for the listening line (waitFor's default unless given). */
  listenDeadlineMs?: number,
): Promise<ListeningDaemon> {
  const daemon = startDaemon(state, env);
  const listening = /http: listening on (?:127\.0\.0\.1|0\.0\.0\.0):(\d+)/;
  try {
    await Promise.race([
      waitFor(
        'the daemon to listen',
        daemon.output,
        (output) => listening.test(output),
        listenDeadlineMs === undefined ? {} : { deadlineMs: listenDeadlineMs },
      ),
      daemon.exited.then((code) => {
        throw new Error(`daemon exited with ${code} before listening:\n${daemon.output()}`);
      }),
    ]);
  } catch (error) {
    // A daemon that did not come up in time is ended here: the test never gets it to stop, and
    // a child left running keeps the test file's process alive until the runner's file deadline.
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    throw error;
  }
  const port = Number(listening.exec(daemon.output())![1]);
  return {
    ...daemon,
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      const { child } = daemon;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await daemon.exited;
      clearTimeout(killer);
    },
  };
}
