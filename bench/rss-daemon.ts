// The daemon process and its load for `npm run bench:rss` (bench/rss.ts) and its soak
// (bench/rss-soak.ts): started as the service starts it (the launcher's node arguments, the unit's
// Environment= lines), under the bench's own ports. GATEWAY_ROOT=DIR measures another build;
// NODE_FLAGS="..." adds V8 / node flags; BARE=1 leaves out the unit's environment.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DAEMON_NODE_ARGS } from '../scripts/launcher.js';

export const root = process.env.GATEWAY_ROOT ?? new URL('../..', import.meta.url).pathname;

/** `Environment=KEY=VALUE` lines of the systemd unit, as the service's processes get them. */
function unitEnvironment(): Record<string, string> {
  if (process.env.BARE === '1') return {};
  const unit = readFileSync(new URL('../../systemd/meter-gateway.service', import.meta.url), 'utf8');
  const pairs = [...unit.matchAll(/^Environment=([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm)];
  return Object.fromEntries(pairs.map((match) => [match[1]!, match[2]!.trim()]));
}
export const serviceEnvironment = unitEnvironment();

export function describeStart(): string {
  const environment = Object.entries(serviceEnvironment)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return (
    `started as the service starts it: node ${[...DAEMON_NODE_ARGS, process.env.NODE_FLAGS ?? ''].join(' ').trim()}, ` +
    (environment || 'no unit environment (BARE=1)')
  );
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

/** The anonymous part of the resident set (heap, stacks, malloc): what the daemon itself allocated. */
export function anonymousKb(pid: number): number {
  return Number(/Anonymous:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN);
}

/** A mosquitto on a free loopback port, or undefined when mosquitto is not installed. */
export async function startMosquitto(): Promise<{ url: string; stop: () => void } | undefined> {
  if (spawnSync('sh', ['-c', 'command -v mosquitto']).status !== 0) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rss-mosquitto-'));
  writeFileSync(join(dir, 'm.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const child = spawn('mosquitto', ['-c', join(dir, 'm.conf')], { stdio: 'ignore' });
  await sleep(500);
  return {
    url: `mqtt://127.0.0.1:${port}`,
    stop: () => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A loopback HTTP server answering 204 to everything (cloud push and action targets). */
export async function startSink(): Promise<{ port: number; server: Server }> {
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

export interface Load {
  modbusPort?: number;
  proxyPort?: number;
  /** SSE clients on /api/v1/live (1 unless set). */
  sseClients?: number;
  /** Scrape /metrics every second (a Prometheus at scrape_interval 1s). */
  metrics?: boolean;
  /** Times the normal rate of the report and Modbus polls (1 unless set; the soak's warm-up raises it). */
  rate?: number;
}

function pollModbus(
  port: number,
  rate: number,
): { socket: ReturnType<typeof connect>; timer: NodeJS.Timeout } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  let tid = 0;
  // Modbus Application Protocol 1.1b3 §6.4: FC 04, start 0, 125 registers, behind the MBAP header.
  const request = () => Buffer.from([0, ++tid & 0xff, 0, 0, 0, 6, 1, 4, 0, 0, 0, 125]);
  return { socket, timer: setInterval(() => socket.write(request()), 1000 / rate) };
}

/** Keeps the outputs busy: report polls, SSE clients, Modbus polls, a meter proxy reader. */
export function startLoad(httpPort: number, load: Load): () => void {
  const timers: NodeJS.Timeout[] = [];
  const sockets: ReturnType<typeof connect>[] = [];
  const rate = load.rate ?? 1;
  timers.push(
    setInterval(() => {
      fetch(`http://127.0.0.1:${httpPort}/api/v1/report`).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
    }, 200 / rate),
  );
  if (load.metrics) {
    timers.push(
      setInterval(() => {
        fetch(`http://127.0.0.1:${httpPort}/metrics`).then(
          (r) => r.arrayBuffer(),
          () => undefined,
        );
      }, 1000),
    );
  }
  const sse = new AbortController();
  for (let n = 0; n < (load.sseClients ?? 1); n++) {
    fetch(`http://127.0.0.1:${httpPort}/api/v1/live`, { signal: sse.signal })
      .then(async (r) => {
        for await (const _ of r.body ?? []) void _;
      })
      .catch(() => undefined);
  }
  if (load.modbusPort) {
    const { socket, timer } = pollModbus(load.modbusPort, rate);
    sockets.push(socket);
    timers.push(timer);
  }
  if (load.proxyPort) {
    const socket = connect(load.proxyPort, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    sockets.push(socket);
  }
  return () => {
    timers.forEach(clearInterval);
    sse.abort();
    sockets.forEach((socket) => socket.destroy());
  };
}

/** The daemon on config/default.json, a fresh state directory and `env` over the unit's environment. */
export async function startDaemon(
  env: Record<string, string>,
  /** Fills the state folder before the start (a year of price files). */
  prepare?: (state: string) => void,
): Promise<{ child: ChildProcess; httpPort: number; stop(): Promise<void> }> {
  const state = mkdtempSync(join(tmpdir(), 'rss-state-'));
  prepare?.(state);
  const httpPort = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...DAEMON_NODE_ARGS,
      ...(process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean),
      join(root, 'dist/src/main.js'),
      '--config',
      join(root, 'config/default.json'),
      '--state-dir',
      state,
    ],
    {
      env: {
        ...process.env,
        ...serviceEnvironment,
        METER_GATEWAY_HTTP_HOST: '127.0.0.1',
        METER_GATEWAY_HTTP_PORT: String(httpPort),
        ...env,
      },
      stdio: 'ignore',
    },
  );
  return {
    child,
    httpPort,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Every output on: Modbus slave, meter proxy, CSV logging, log file, cloud push, MQTT (with a broker). */
export function everyOutputEnvironment(ports: {
  modbusPort: number;
  proxyPort: number;
  sinkPort: number;
  brokerUrl: string | undefined;
}): Record<string, string> {
  return {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(ports.modbusPort),
    METER_GATEWAY_SERVICES_METER_PROXY: 'true',
    METER_GATEWAY_METER_PROXY_PORT: String(ports.proxyPort),
    METER_GATEWAY_SERVICES_SD_ENABLE: 'true',
    METER_GATEWAY_SERVICES_SD_FREQUENCY: '1',
    METER_GATEWAY_SERVICES_LOG: 'true',
    METER_GATEWAY_SERVICES_CLOUD_VENDOR: 'true',
    METER_GATEWAY_CLOUD_VENDOR_URL: `http://127.0.0.1:${ports.sinkPort}/push`,
    METER_GATEWAY_SERVICES_REPORT_INTERVAL: '1',
    ...(ports.brokerUrl
      ? { METER_GATEWAY_MQTT_ENABLE: 'true', METER_GATEWAY_MQTT_URL: ports.brokerUrl }
      : {}),
  };
}
