// `npm run bench:rss`: resident memory of the real daemon process (VmRSS), with the default config
// (simulator + HTTP, what `npm start` runs) and with every output on and in use. Targets
// (docs/architecture.md#performance): <= 65 MB default, <= 85 MB every output (median). Loopback
// only; bounded in time.
// The daemon starts as the service starts it: the node arguments the launcher gives the app and the
// unit's Environment= lines (systemd/meter-gateway.service), under the bench's own port settings.
// GATEWAY_ROOT=DIR measures another build (e.g. an older checkout) with the same load; NODE_FLAGS="..."
// adds V8 / node flags (e.g. --max-semi-space-size=1); BARE=1 leaves out the unit's environment.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DAEMON_NODE_ARGS } from '../scripts/launcher.js';

const root = process.env.GATEWAY_ROOT ?? new URL('../..', import.meta.url).pathname;
const WARM_S = Number(process.env.WARM_S ?? 5);
const SAMPLE_S = Number(process.env.SAMPLE_S ?? 20);

/** `Environment=KEY=VALUE` lines of the systemd unit, as the service's processes get them. */
function unitEnvironment(): Record<string, string> {
  if (process.env.BARE === '1') return {};
  const unit = readFileSync(new URL('../../systemd/meter-gateway.service', import.meta.url), 'utf8');
  const pairs = [...unit.matchAll(/^Environment=([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm)];
  return Object.fromEntries(pairs.map((match) => [match[1]!, match[2]!.trim()]));
}
const serviceEnvironment = unitEnvironment();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

/** The anonymous part of the resident set (heap, stacks, malloc): what the daemon itself allocated. */
function anonymousKb(pid: number): number {
  return Number(/Anonymous:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN);
}

/** A mosquitto on a free loopback port, or undefined when mosquitto is not installed. */
async function startMosquitto(): Promise<{ url: string; stop: () => void } | undefined> {
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

interface Load {
  modbusPort?: number;
  proxyPort?: number;
}

/** Keeps the outputs busy: report polls, one SSE client, Modbus polls, a meter proxy reader. */
function startLoad(httpPort: number, load: Load): () => void {
  const timers: NodeJS.Timeout[] = [];
  const sockets: ReturnType<typeof connect>[] = [];
  timers.push(
    setInterval(() => {
      fetch(`http://127.0.0.1:${httpPort}/api/v1/report`).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
    }, 200),
  );
  const sse = new AbortController();
  fetch(`http://127.0.0.1:${httpPort}/api/v1/live`, { signal: sse.signal })
    .then(async (r) => {
      for await (const _ of r.body ?? []) void _;
    })
    .catch(() => undefined);
  if (load.modbusPort) {
    const socket = connect(load.modbusPort, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    sockets.push(socket);
    let tid = 0;
    const request = () => Buffer.from([0, ++tid & 0xff, 0, 0, 0, 6, 1, 4, 0, 0, 0, 125]);
    timers.push(setInterval(() => socket.write(request()), 1000));
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

/**
 * The default config plus four further meters (docs/architecture.md#several-meters): three SDM630
 * meters served by pymodbus on one RS485 bus (a socat pty pair, units 1..3) and one virtual meter;
 * the per-meter cost against the default row. Target: each extra polled meter <= 3 MB.
 */
async function severalMeters(defaultRow: string): Promise<string> {
  const name = 'default config + 4 meters (3 Modbus on one bus, 1 virtual)';
  const { Rs485Bus } = await import('../test/meters/rs485-bus-rig.js').catch(() => ({ Rs485Bus: undefined }));
  if (!Rs485Bus || spawnSync('sh', ['-c', 'command -v socat']).status !== 0)
    return `${name.padEnd(44)} skipped (needs socat and the test build)`;
  const bus = new Rs485Bus();
  try {
    await bus.start([1, 2, 3]);
  } catch (error) {
    await bus.stop().catch(() => undefined);
    return `${name.padEnd(44)} skipped (${(error as Error).message.split('\n')[0]})`;
  }
  const source = (unit: number) =>
    `modbus-rtu:${bus.hostPath}?unit=${unit}&profile=sdm630&baud=9600&interval=1`;
  const meters = [
    ...[1, 2, 3].map((unit) => ({
      id: `m${unit}`,
      name: `Meter ${unit}`,
      role: 'other',
      source: source(unit),
    })),
    { id: 'house', name: 'House', role: 'consumer', expression: 'main - m1 - m2 - m3' },
  ];
  const row = await measure(name, { METER_GATEWAY_METERS: JSON.stringify(meters) }, {});
  await bus.stop();
  const median = (text: string) => Number(/median\s+([\d.]+) MB/.exec(text)?.[1]);
  const perMeter = (median(row) - median(defaultRow)) / 4;
  return `${row}\n${''.padEnd(44)} per further meter: ${perMeter.toFixed(2)} MB (target <= 3 MB)`;
}

async function measure(name: string, env: Record<string, string>, load: Load): Promise<string> {
  const state = mkdtempSync(join(tmpdir(), 'rss-state-'));
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
  await sleep(WARM_S * 1000);
  const stopLoad = startLoad(httpPort, load);
  const samples: number[] = [];
  const anonymous: number[] = [];
  for (let s = 0; s < SAMPLE_S; s++) {
    await sleep(1000);
    samples.push(rssKb(child.pid!) / 1024);
    anonymous.push(anonymousKb(child.pid!) / 1024);
  }
  stopLoad();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(state, { recursive: true, force: true });
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  const max = samples[samples.length - 1]!;
  anonymous.sort((a, b) => a - b);
  const anonymousMedian = anonymous[Math.floor(anonymous.length / 2)]!;
  return `${name.padEnd(44)} median ${median.toFixed(1).padStart(6)} MB   max ${max.toFixed(1).padStart(6)} MB   anonymous median ${anonymousMedian.toFixed(1).padStart(6)} MB`;
}

const sink = createHttpServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkPort = (sink.address() as { port: number }).port;
const broker = await startMosquitto();

console.log(
  `daemon resident memory (VmRSS), node ${process.version}: ${WARM_S} s warm-up, ${SAMPLE_S} samples at 1 s under load`,
);
console.log(
  `started as the service starts it: node ${[...DAEMON_NODE_ARGS, process.env.NODE_FLAGS ?? ''].join(' ').trim()}, ` +
    `${
      Object.entries(serviceEnvironment)
        .map(([key, value]) => `${key}=${value}`)
        .join(' ') || 'no unit environment (BARE=1)'
    }`,
);
const defaultRow = await measure('default config (simulator + HTTP + mDNS)', {}, {});
console.log(defaultRow);
console.log(await severalMeters(defaultRow));
// The default config plus actions that load got, node-cron and modbus-serial: an HTTP request every
// second (schedule), one on a live condition, and a Modbus write every 5 s (to a closed port).
const actions = {
  actions: [
    {
      id: 'tick',
      schedule: '* * * * * *',
      requests: [
        { http: { url: `http://127.0.0.1:${sinkPort}/tick`, method: 'POST', payload: '{"p":${1_7_0}}' } },
      ],
    },
    {
      id: 'import',
      when: { value: 'P_In', above: 0, for: 1 },
      requests: [{ http: { url: `http://127.0.0.1:${sinkPort}/on` } }],
    },
    {
      id: 'write',
      schedule: '*/5 * * * * *',
      requests: [
        {
          modbus: {
            host: '127.0.0.1',
            port: await freePort(),
            func: 16,
            address: 0,
            type: 'float',
            value: '${1_7_0}',
            timeout: 1,
          },
        },
      ],
    },
  ],
};
console.log(
  await measure(
    'default config + actions (got, node-cron, Modbus)',
    { METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(actions) },
    {},
  ),
);
const modbusPort = await freePort();
const proxyPort = await freePort();
const everything: Record<string, string> = {
  METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
  METER_GATEWAY_SERVICES_MODBUS_PORT: String(modbusPort),
  METER_GATEWAY_SERVICES_METER_PROXY: 'true',
  METER_GATEWAY_METER_PROXY_PORT: String(proxyPort),
  METER_GATEWAY_SERVICES_SD_ENABLE: 'true',
  METER_GATEWAY_SERVICES_SD_FREQUENCY: '1',
  METER_GATEWAY_SERVICES_LOG: 'true',
  METER_GATEWAY_SERVICES_CLOUD_VENDOR: 'true',
  METER_GATEWAY_CLOUD_VENDOR_URL: `http://127.0.0.1:${sinkPort}/push`,
  METER_GATEWAY_SERVICES_REPORT_INTERVAL: '1',
  ...(broker ? { METER_GATEWAY_MQTT_ENABLE: 'true', METER_GATEWAY_MQTT_URL: broker.url } : {}),
};
console.log(
  await measure(`every output on${broker ? '' : ' (no mosquitto here: MQTT off)'}`, everything, {
    modbusPort,
    proxyPort,
  }),
);
broker?.stop();
sink.close();
