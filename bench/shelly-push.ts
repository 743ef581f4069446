// Shelly personality: WebSocket pushes, idle sockets and a UDP flood.
// 1. Push latency, in process: one WebSocket client sends one request with a `src`, then 500
//    readings are ingested 20 ms apart (each with another power); from `ReadingStore.ingest` to the
//    client's receipt of the NotifyStatus frame. Target: p99 <= 20 ms on a quiet machine.
// 2. Idle sockets: 500 WebSocket clients in a child process, each subscribed by one request; the
//    server process's heap + external memory before and after (after a GC). Target: <= 5 MB.
// 3. UDP flood: a child process sends 10,000 EM.GetStatus datagrams per second from one source for
//    5 s while another child measures `GET /api/v1/report` latencies (sequential requests); p99
//    against the same probe without the flood. Target: within 2x of idle.
//
// Run: `npm run build && node --expose-gc dist/bench/shelly-push.js` (Linux, loopback only).
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { registerCoreRoutes } from '../src/http/server.js';
import { registerShellyRoutes, shellyRpcOf } from '../src/http/routes/shelly.js';
import { SHELLY_WS_DEFAULTS, ShellyWebSocket } from '../src/device/shelly/websocket.js';
import { ShellyUdp } from '../src/device/shelly/udp.js';
import { runOutput } from '../src/output-runner.js';
import { startHttpContext, syntheticReading } from '../test/helpers/http-context.js';
import { freeUdpPort } from '../test/helpers/ports.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function memory(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** Runs a child Node script; resolves with its stdout once it printed `ready` (or exited). */
function child(
  script: string,
  args: string[],
): { ready: Promise<string>; done: Promise<string>; kill(): void } {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: process.cwd(),
  });
  let out = '';
  let onReady: (text: string) => void = () => undefined;
  const ready = new Promise<string>((resolve) => (onReady = resolve));
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('ready')) onReady(out);
  });
  const done = new Promise<string>((resolve) => proc.on('exit', () => resolve(out)));
  return { ready, done, kill: () => proc.kill('SIGKILL') };
}

const IDLE_CLIENTS = `
import { WebSocket } from 'ws';
const [port, count] = process.argv.slice(1).map(Number);
const sockets = [];
for (let i = 0; i < count; i++) {
  const socket = new WebSocket('ws://127.0.0.1:' + port + '/rpc');
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ id: 1, src: 'idle-' + i, method: 'Shelly.GetDeviceInfo' }));
  await new Promise((resolve) => socket.once('message', resolve));
  sockets.push(socket);
}
console.log('ready');
setInterval(() => undefined, 1000);
`;

const UDP_FLOOD = `
import { createSocket } from 'node:dgram';
const [port, rate, seconds] = process.argv.slice(1).map(Number);
const socket = createSocket('udp4');
socket.on('message', () => undefined);
const frame = Buffer.from('{"id":1,"method":"EM.GetStatus","params":{"id":0}}');
console.log('ready');
const started = performance.now();
let sent = 0;
while (performance.now() - started < seconds * 1000) {
  const due = ((performance.now() - started) / 1000) * rate;
  while (sent < due) { socket.send(frame, port, '127.0.0.1'); sent++; }
  await new Promise((resolve) => setTimeout(resolve, 5));
}
console.log('sent ' + sent);
socket.close();
`;

const HTTP_PROBE = `
import { request } from 'node:http';
const [port, seconds] = process.argv.slice(1).map(Number);
const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
const started = performance.now();
console.log('ready');
while (performance.now() - started < seconds * 1000) {
  const t0 = performance.now();
  await new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/v1/report', agent }, (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', reject);
    req.end();
  });
  times.push(performance.now() - t0);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
times.sort((a, b) => a - b);
console.log('p99 ' + times[Math.floor(times.length * 0.99)].toFixed(2) + ' p50 ' + times[Math.floor(times.length * 0.5)].toFixed(2) + ' n ' + times.length);
`;

async function main(): Promise<void> {
  const udpPort = await freeUdpPort();
  let ws: ShellyWebSocket | undefined;
  const http = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: '',
      METER_GATEWAY_LOG_LEVEL: 'error',
    },
    server: {
      upgrades: {
        handles: (request) => ws!.handles(request),
        upgrade: (...args) => ws!.upgrade(...args),
        close: () => ws?.close(),
      },
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      const rpc = shellyRpcOf(ctx);
      registerShellyRoutes(router, ctx, rpc);
      ws = new ShellyWebSocket(
        rpc,
        () => true,
        ctx.logger,
        { refusals: ctx.refusals, clock: ctx.clock },
        { ...SHELLY_WS_DEFAULTS, maxClients: 600, maxPerAddress: 600 },
      );
    },
  });
  const { ctx, clock, port } = http;
  ctx.store.ingest(syntheticReading(clock.now()));

  // 1. Push latency.
  const client = new WebSocket(`ws://127.0.0.1:${port}/rpc`);
  await new Promise((resolve) => client.once('open', resolve));
  client.send(JSON.stringify({ id: 1, src: 'bench', method: 'Shelly.GetDeviceInfo' }));
  await new Promise((resolve) => client.once('message', resolve));
  const latencies: number[] = [];
  let sentAt = 0;
  client.on('message', (data) => {
    if (String(data).includes('"NotifyStatus"')) latencies.push(performance.now() - sentAt);
  });
  for (let step = 1; step <= 500; step++) {
    await sleep(20);
    sentAt = performance.now();
    ctx.store.ingest(syntheticReading(clock.now(), step));
  }
  await sleep(100);
  client.close();
  latencies.sort((a, b) => a - b);
  console.log(
    `push latency: ${latencies.length} NotifyStatus for 500 readings, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies.at(-1)!.toFixed(2)} ms`,
  );

  // 2. 500 idle sockets.
  await sleep(200);
  const before = memory();
  const idle = child(IDLE_CLIENTS, [String(port), '500']);
  await idle.ready;
  await sleep(500);
  const after = memory();
  console.log(
    `500 idle subscribed sockets: ${ws!.clients} clients, server heap+external +${((after - before) / 1024 / 1024).toFixed(2)} MB`,
  );
  idle.kill();
  await sleep(500);

  // 3. UDP flood against HTTP p99.
  const udp = new ShellyUdp(shellyRpcOf(ctx), ctx.logger, ctx.clock);
  const udpRunning = runOutput(ctx, udp);
  await udpRunning.start();
  const probe = async () => {
    const run = child(HTTP_PROBE, [String(port), '5']);
    return (await run.done).trim().split('\n').at(-1)!;
  };
  const idleP99 = await probe();
  const flood = child(UDP_FLOOD, [String(udpPort), '10000', '6']);
  await flood.ready;
  const floodP99 = await probe();
  const sent = (await flood.done).trim().split('\n').at(-1);
  console.log(`GET /api/v1/report idle: ${idleP99}`);
  console.log(
    `GET /api/v1/report under 10,000 datagrams/s: ${floodP99} (${sent}; answered ${udp.answered}, rate-limited ${udp.limited})`,
  );
  await udpRunning.stop();
  await http.close();
}

await main();
