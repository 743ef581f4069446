// `npm run bench:rss -- --soak MINUTES`: resident memory of the daemon with every output on and in
// use for MINUTES minutes: report polls, SSE clients, Modbus polls of the slave, a meter proxy
// reader, MQTT to a mosquitto, cloud push, and actions: an HTTP request and a Modbus write (to a
// loopback Modbus TCP peer) every second by schedule, plus a call through /api/v1/actions/call and
// its status every second. The meter is the simulator's household, sent by this bench as DSMR 5
// telegrams over a loopback TCP meter source (`tcp://`), one a second.
// Warm-up first (WARM_MIN minutes, default 10, not counted): the same load at WARM_RATE times its
// rate (default 10: ten telegrams, ten action calls (an HTTP request and a Modbus write each, as the
// schedule's action) and ten Modbus polls a second, report polls every 20 ms). V8 compiles a
// function with its optimizing compiler once enough of its bytecode has run, so handlers that run
// once a second take about 30 minutes to get there and the resident memory rises with their machine
// code and metadata all that time (docs/architecture.md#performance); the faster warm-up runs them
// that often in a few minutes. WARM_RATE=1 warms up at the normal rate. The warm-up ends with
// SETTLE_MIN minutes (default 5) at the normal rate: when the load drops, V8 gives back most of the
// heap it grew for the faster rate and then grows it again to what the normal rate needs (measured:
// 87 MB a minute after the drop, 91 MB five minutes later).
// Then MINUTES minutes at the normal rate: prints the per-minute median of VmRSS (sampled every
// 10 s), the least-squares slope over them, and the median of each 10 minutes.
// /metrics is scraped every 15 s as Prometheus would, with the process metrics on, and each minute
// also shows where the memory is: the V8 heap (used, the total V8 holds, the lowest old space used of
// the minute and the code space used: machine code of compiled functions) and the memory outside it
// that V8 knows of (Buffers and other external memory). At the end: the lowest old space used in
// each 5 minutes with their slope (JavaScript objects kept per request or per run would raise them)
// and the code space at the start and the end of the measured minutes.
// Growth of RSS that shows in none of them is native memory (allocator, libuv, OpenSSL).
// Target (docs/architecture.md#performance): flat after warm-up.
import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { initialState, seededRandom, step } from '../src/meter/simulator/model.js';
import { buildTelegram } from '../src/meter/simulator/telegram.js';
import {
  anonymousKb,
  describeStart,
  everyOutputEnvironment,
  freePort,
  rssKb,
  startDaemon,
  startLoad,
  startMosquitto,
  startSink,
} from './rss-daemon.js';

/** Answers Modbus TCP writes (FC 5, 6, 15, 16) as a device would (Modbus Application Protocol 1.1b3 §6.5-6.12). */
async function startModbusPeer(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 7 && pending.length >= 6 + pending.readUInt16BE(4)) {
        const frame = pending.subarray(0, 6 + pending.readUInt16BE(4));
        pending = pending.subarray(frame.length);
        // FC 5/6 echo the request; FC 15/16 answer unit, function, address and quantity.
        const answer = Buffer.from(frame.subarray(0, 12));
        answer.writeUInt16BE(6, 4);
        socket.write(answer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close() {
      sockets.forEach((socket) => socket.destroy());
      server.close();
    },
  };
}

/**
 * A meter on a loopback TCP port (the daemon's `tcp://` meter source, as a ser2net P1 port): the
 * simulator's household as DSMR 5 telegrams, one every `setInterval(ms)` to every connected reader.
 */
async function startMeterFeed(): Promise<{ port: number; setInterval(ms: number): void; close(): void }> {
  const random = seededRandom(1);
  const state = initialState(random, Date.now());
  let last = Date.now();
  let intervalMs = 1000;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = Date.now();
    step(state, random, now, (now - last) / 1000);
    last = now;
    const telegram = buildTelegram(state, now);
    for (const socket of sockets) socket.write(telegram);
    timer = setTimeout(tick, intervalMs);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tick();
  return {
    port: (server.address() as { port: number }).port,
    setInterval(ms: number) {
      intervalMs = ms;
    },
    close() {
      clearTimeout(timer);
      sockets.forEach((socket) => socket.destroy());
      server.close();
    },
  };
}

function soakActions(sinkPort: number, modbusPeerPort: number): unknown {
  const write = {
    modbus: {
      host: '127.0.0.1',
      port: modbusPeerPort,
      func: 16,
      address: 0,
      type: 'float',
      value: '${1_7_0}',
    },
  };
  return {
    actions: [
      {
        id: 'tick',
        schedule: '* * * * * *',
        requests: [
          { http: { url: `http://127.0.0.1:${sinkPort}/tick`, method: 'POST', payload: '{"p":${1_7_0}}' } },
          write,
        ],
      },
      {
        id: 'import',
        when: { value: 'P_In', above: 0, for: 1 },
        requests: [{ http: { url: `http://127.0.0.1:${sinkPort}/on` } }],
      },
      // The same requests as the schedule's: the warm-up calls it ten times a second.
      {
        id: 'called',
        requests: [
          { http: { url: `http://127.0.0.1:${sinkPort}/called`, method: 'POST', payload: '{"p":${1_7_0}}' } },
          write,
        ],
      },
    ],
  };
}

/** POST /api/v1/actions/call `rate` times a second and reads the status it points to. */
function callActions(httpPort: number, rate: number): () => void {
  const base = `http://127.0.0.1:${httpPort}`;
  const timer = setInterval(() => {
    fetch(`${base}/api/v1/actions/call?id=called`, { method: 'POST' })
      .then(async (answer) => {
        await answer.arrayBuffer();
        const location = answer.headers.get('location');
        if (location) await (await fetch(`${base}${location}`)).arrayBuffer();
      })
      .catch(() => undefined);
  }, 1000 / rate);
  return () => clearInterval(timer);
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const MB = 1024 * 1024;

/** A value of the last scrape's text, in MB (the first series of `name`, or the one with `label`). */
function megabytes(text: string, name: string, label = ''): number {
  const pattern = new RegExp(`^${name}(?:\\{[^}]*${label}[^}]*\\})? (\\S+)$`, 'm');
  return Number(pattern.exec(text)?.[1]) / MB;
}

interface MinuteOfHeap {
  text: string;
  /** The lowest old space used of the minute's scrapes: what a full collection leaves, plus garbage. */
  oldLow: number;
  /** Code space used at the last scrape: machine code of the compiled functions. */
  code: number;
}

/**
 * Scrapes /metrics every 15 s; `minute()` formats the V8 heap of the scrapes since its last call:
 * the last heap used, the heap V8 holds (total), the lowest old space used (JavaScript objects and
 * the compilers' metadata), the code space used (machine code), and the external memory.
 */
function scrapeEvery15s(httpPort: number): { minute(): MinuteOfHeap; stop(): void } {
  let text = '';
  let oldLow = Infinity;
  const timer = setInterval(() => {
    fetch(`http://127.0.0.1:${httpPort}/metrics`).then(
      async (answer) => {
        text = await answer.text();
        oldLow = Math.min(oldLow, megabytes(text, 'nodejs_heap_space_size_used_bytes', 'space="old"'));
      },
      () => undefined,
    );
  }, 15_000);
  return {
    minute() {
      const value = (name: string) => megabytes(text, name).toFixed(1);
      const low = oldLow;
      const code = megabytes(text, 'nodejs_heap_space_size_used_bytes', 'space="code"');
      oldLow = Infinity;
      return {
        oldLow: low,
        code,
        text:
          `heap used ${value('nodejs_heap_size_used_bytes')} of ${value('nodejs_heap_size_total_bytes')} MB ` +
          `(old low ${low.toFixed(1)}, code ${code.toFixed(1)}), external ${value('nodejs_external_memory_bytes')} MB`,
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** The lowest old space used in each 5 minutes after the warm-up (full collections run minutes apart). */
function oldSpaceLows(heap: Array<[number, MinuteOfHeap]>, warmMinutes: number): Array<[number, number]> {
  const lows = new Map<number, number>();
  for (const [minute, { oldLow }] of heap) {
    if (minute <= warmMinutes || !Number.isFinite(oldLow)) continue;
    const block = warmMinutes + 5 * Math.floor((minute - warmMinutes - 1) / 5) + 5;
    lows.set(block, Math.min(lows.get(block) ?? Infinity, oldLow));
  }
  return [...lows];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Per-minute samples: the median VmRSS and anonymous memory of six samples 10 s apart, and the V8 heap. */
async function sampleMinute(pid: number, scraper: ReturnType<typeof scrapeEvery15s>) {
  const rss: number[] = [];
  const anonymous: number[] = [];
  for (let s = 0; s < 6; s++) {
    await sleep(10_000);
    rss.push(rssKb(pid) / 1024);
    anonymous.push(anonymousKb(pid) / 1024);
  }
  const heap = scraper.minute();
  const text =
    `RSS median ${median(rss).toFixed(1).padStart(6)} MB  max ${Math.max(...rss)
      .toFixed(1)
      .padStart(6)} MB  anonymous median ${median(anonymous).toFixed(1).padStart(6)} MB  ` + heap.text;
  return { rss: median(rss), heap, text };
}

export async function soak(minutes: number): Promise<void> {
  const warmMinutes = Number(process.env.WARM_MIN ?? 10);
  const warmRate = Number(process.env.WARM_RATE ?? 10);
  const settleMinutes = Number(process.env.SETTLE_MIN ?? 5);
  const sink = await startSink();
  const broker = await startMosquitto();
  const peer = await startModbusPeer();
  const meter = await startMeterFeed();
  const modbusPort = await freePort();
  const proxyPort = await freePort();
  const env = {
    ...everyOutputEnvironment({ modbusPort, proxyPort, sinkPort: sink.port, brokerUrl: broker?.url }),
    METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${meter.port}`,
    METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(soakActions(sink.port, peer.port)),
    METER_GATEWAY_SERVICES_METRICS_PROCESS: 'true',
  };
  console.log(
    `soak: ${warmMinutes} min warm-up at ${warmRate}x the rate and ${settleMinutes} min at the normal rate, ` +
      `then ${minutes} min measured; every output on` +
      `${broker ? '' : ' (no mosquitto here: MQTT off)'}, 4 SSE clients,`,
  );
  console.log(
    `a DSMR telegram a second over tcp://, actions every second (HTTP + Modbus write), node ${process.version}; ${describeStart()}`,
  );
  const daemon = await startDaemon(env);
  const pid = daemon.child.pid!;
  console.log(`daemon pid ${pid}, HTTP on 127.0.0.1:${daemon.httpPort}`);
  await sleep(5000);
  const scraper = scrapeEvery15s(daemon.httpPort);
  const loadAt = (rate: number) => {
    meter.setInterval(1000 / rate);
    const stopLoad = startLoad(daemon.httpPort, { modbusPort, proxyPort, sseClients: 4, rate });
    const stopCalls = callActions(daemon.httpPort, rate);
    return () => {
      stopCalls();
      stopLoad();
    };
  };
  let stop = loadAt(warmRate);
  for (let minute = 1; minute <= warmMinutes; minute++) {
    const { text } = await sampleMinute(pid, scraper);
    console.log(`warm-up ${String(minute).padStart(3)}  ${text}`);
  }
  stop();
  // The meter must be read over tcp:// (status OK), or the soak measures an idle daemon.
  const report = (await (await fetch(`http://127.0.0.1:${daemon.httpPort}/api/v1/report`)).json()) as {
    meter?: { status?: string };
  };
  console.log(`meter status after the warm-up: ${report.meter?.status}`);
  stop = loadAt(1);
  for (let minute = 1; minute <= settleMinutes; minute++) {
    const { text } = await sampleMinute(pid, scraper);
    console.log(`settle  ${String(minute).padStart(3)}  ${text}`);
  }
  const perMinute: Array<[number, number]> = [];
  const heap: Array<[number, MinuteOfHeap]> = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const sample = await sampleMinute(pid, scraper);
    perMinute.push([minute, sample.rss]);
    heap.push([minute, sample.heap]);
    console.log(`minute  ${String(minute).padStart(3)}  ${sample.text}`);
  }
  scraper.stop();
  stop();
  await daemon.stop();
  broker?.stop();
  peer.close();
  meter.close();
  sink.server.close();
  const lows = oldSpaceLows(heap, 0);
  const code = heap.map(([, { code }]) => code);
  const all = perMinute.map(([, value]) => value);
  const lastHalf = perMinute.slice(Math.floor(perMinute.length / 2));
  // V8 gives memory back now and then (a drop of several MB for a minute or two), which pulls a
  // slope down: the medians of each 10 minutes and the highest minute show the level it returns to.
  const tens = Array.from({ length: Math.ceil(all.length / 10) }, (_, k) =>
    median(all.slice(10 * k, 10 * k + 10)),
  );
  console.log(
    `after the ${warmMinutes + settleMinutes} min warm-up: slope ${slope(perMinute).toFixed(3)} MB/min over ${perMinute.length} min ` +
      `(second half ${slope(lastHalf).toFixed(3)} MB/min), median ${median(all).toFixed(1)} MB, ` +
      `range ${Math.min(...all).toFixed(1)}-${Math.max(...all).toFixed(1)} MB, ` +
      `medians of each 10 min ${tens.map((value) => value.toFixed(1)).join(', ')} MB`,
  );
  console.log(
    `lowest old space used per 5 min: ${lows.map(([, low]) => low.toFixed(1)).join(', ')} MB ` +
      `(slope ${slope(lows).toFixed(3)} MB/min); code space used ${code[0]?.toFixed(1)} -> ${code.at(-1)?.toFixed(1)} MB`,
  );
}
