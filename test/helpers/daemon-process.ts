import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { cliCommand, repoRoot } from './environment.js';

/** The real daemon as a child process: the CLI on config/default.json (simulator), HTTP on 127.0.0.1. */
export interface DaemonProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/**
 * Spawns the daemon CLI on config/default.json with `stateDir`, HTTP on 127.0.0.1 port 0 and mDNS
 * off (nothing leaves the loopback interface); `env` adds METER_GATEWAY_* overrides. Stdout and
 * stderr are collected in `output()`.
 */
export function spawnDaemon(
  stateDir: string,
  env: Record<string, string> = {},
): { child: ChildProcess; output: () => string } {
  const { command, args } = cliCommand();
  const child = spawn(
    command,
    [...args, '--config', join(repoRoot, 'config', 'default.json'), '--state-dir', stateDir],
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
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Spawns the daemon (see spawnDaemon) and waits until it listens; the port comes from its log line. */
export async function startDaemonProcess(
  stateDir: string,
  env: Record<string, string> = {},
): Promise<DaemonProcess> {
  const { child, output } = spawnDaemon(stateDir, env);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`daemon did not listen within 20 s:\n${output()}`)),
      20_000,
    );
    const onData = () => {
      const match = /http: listening on 127\.0\.0\.1:(\d+)/.exec(output());
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      resolve(Number(match[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening:\n${output()}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
