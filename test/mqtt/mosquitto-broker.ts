import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Debian's mosquitto started by a test from a config in a temp dir, bound to loopback only, like
 * the MQTT floor of the load-generator bench does. Started as root it drops to the mosquitto user, so the dir
 * and files are world-readable. `kill` is SIGKILL (a crash: retained messages are gone, persistence is
 * off); `start` brings it back on the same ports.
 */
export interface TlsListener {
  /** Addresses the TLS listener binds (one listener per address, same port). */
  hosts: string[];
  caFile: string;
  certFile: string;
  keyFile: string;
  requireCertificate: boolean;
}

export interface MosquittoBroker {
  port: number;
  url: string;
  tlsPort?: number;
  dir: string;
  start(): Promise<void>;
  kill(): Promise<void>;
  stop(): Promise<void>;
  stderr(): string;
}

export { freePort };

async function accepting(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface BrokerOptions {
  tls?: TlsListener;
  /** Directory for the config (default: a new temp dir, removed by stop()). */
  dir?: string;
  /** set_tcp_nodelay true (benchmarks: the "mosquitto-nodelay" floor of the load-generator bench). */
  nodelay?: boolean;
  /** Pin the broker to this CPU with taskset (benchmarks). */
  cpu?: number | undefined;
  /** Listen on this port instead of a free one (the MQTT default port, for URLs without one). */
  port?: number;
  /** Only this user may connect (a mosquitto_passwd file; anonymous clients are refused). */
  user?: { username: string; password: string };
}

function configText(
  port: number,
  options: BrokerOptions,
  tlsPort: number | undefined,
  passwordFile: string | undefined,
): string {
  const tls = options.tls;
  const lines = [
    '# written by test/mqtt/mosquitto-broker.ts',
    ...(passwordFile ? ['allow_anonymous false', `password_file ${passwordFile}`] : ['allow_anonymous true']),
    'persistence false',
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    `set_tcp_nodelay ${options.nodelay === true}`,
    `listener ${port} 127.0.0.1`,
  ];
  for (const host of tls?.hosts ?? []) {
    lines.push(
      `listener ${tlsPort} ${host}`,
      `cafile ${tls!.caFile}`,
      `certfile ${tls!.certFile}`,
      `keyfile ${tls!.keyFile}`,
      `require_certificate ${tls!.requireCertificate}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function startMosquitto(options: BrokerOptions = {}): Promise<MosquittoBroker> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'meter-gateway-mosquitto-'));
  chmodSync(dir, 0o755);
  const port = options.port ?? (await freePort());
  const tlsPort = options.tls ? await freePort() : undefined;
  const configFile = join(dir, 'mosquitto.conf');
  const passwordFile = options.user ? join(dir, 'passwords') : undefined;
  if (options.user) {
    execFileSync('mosquitto_passwd', [
      '-b',
      '-c',
      passwordFile!,
      options.user.username,
      options.user.password,
    ]);
    chmodSync(passwordFile!, 0o644);
  }
  writeFileSync(configFile, configText(port, options, tlsPort, passwordFile), { mode: 0o644 });
  let child: ChildProcess | undefined;
  let stderr = '';

  async function start(): Promise<void> {
    const command =
      options.cpu !== undefined ? ['taskset', '-c', String(options.cpu), 'mosquitto'] : ['mosquitto'];
    child = spawn(command[0]!, [...command.slice(1), '-c', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const started = child;
    await waitFor(
      `mosquitto to listen on ${port}`,
      async () => {
        if (started.exitCode !== null) throw new Error(`mosquitto exited ${started.exitCode}: ${stderr}`);
        return (
          (await accepting('127.0.0.1', port)) &&
          (tlsPort === undefined || (await accepting(options.tls!.hosts[0]!, tlsPort)))
        );
      },
      Boolean,
      { deadlineMs: 5000, intervalMs: 25 },
    );
  }

  async function kill(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  const broker: MosquittoBroker = {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    dir,
    start,
    kill,
    async stop() {
      await kill();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
    stderr: () => stderr,
  };
  if (tlsPort !== undefined) broker.tlsPort = tlsPort;
  return broker;
}
