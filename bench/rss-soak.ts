// `npm run bench:rss -- --soak MINUTES`: resident memory of the daemon with every output on and in
// use for MINUTES minutes: report polls, SSE clients, Modbus polls of the slave, a meter proxy
// reader, MQTT to a mosquitto, cloud push, and actions: an HTTP request and a Modbus write (to a
// loopback Modbus TCP peer) every second by schedule, plus a call through /api/v1/actions/call and
// its status every second. Prints the per-minute median of VmRSS (sampled every 10 s) and the
// least-squares slope after the warm-up (WARM_MIN, default 5 min or a third of the run).
// /metrics is scraped every 15 s as Prometheus would, with the process metrics on, and each minute
// also shows where the memory is: the V8 heap (the lowest used of the minute, close to what survives
// a collection, the last used, the total V8 holds, its old space and its code space) and the memory
// outside it that V8 knows of (Buffers and other external memory), with the slope of the heap lows
// after the warm-up: JavaScript objects kept per request would show there. Growth of RSS that shows
// in none of them is native memory of the process (allocator, libuv, OpenSSL).
// Target (docs/architecture.md#performance): flat after warm-up.
import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
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
      { id: 'called', requests: [write] },
    ],
  };
}

/** POST /api/v1/actions/call every second and reads the status it points to. */
function callEverySecond(httpPort: number): () => void {
  const base = `http://127.0.0.1:${httpPort}`;
  const timer = setInterval(() => {
    fetch(`${base}/api/v1/actions/call?id=called`, { method: 'POST' })
      .then(async (answer) => {
        await answer.arrayBuffer();
        const location = answer.headers.get('location');
        if (location) await (await fetch(`${base}${location}`)).arrayBuffer();
      })
      .catch(() => undefined);
  }, 1000);
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
  /** The lowest V8 heap used of the minute's scrapes: close to what survives a collection. */
  usedLow: number;
}

/**
 * Scrapes /metrics every 15 s; `minute()` formats the V8 heap of the scrapes since its last call:
 * the lowest and the last heap used, the heap V8 holds, the part of it that is old space and code
 * space (compiled machine code), and the external memory.
 */
function scrapeEvery15s(httpPort: number): { minute(): MinuteOfHeap; stop(): void } {
  let text = '';
  let usedLow = Infinity;
  const timer = setInterval(() => {
    fetch(`http://127.0.0.1:${httpPort}/metrics`).then(
      async (answer) => {
        text = await answer.text();
        usedLow = Math.min(usedLow, megabytes(text, 'nodejs_heap_size_used_bytes'));
      },
      () => undefined,
    );
  }, 15_000);
  return {
    minute() {
      const value = (name: string, label?: string) => megabytes(text, name, label).toFixed(1);
      const low = usedLow;
      usedLow = Infinity;
      return {
        usedLow: low,
        text:
          `heap used low ${low.toFixed(1)} last ${value('nodejs_heap_size_used_bytes')} of ${value('nodejs_heap_size_total_bytes')} MB ` +
          `(old ${value('nodejs_heap_space_size_used_bytes', 'space="old"')}, code ${value('nodejs_heap_space_size_used_bytes', 'space="code"')}), ` +
          `external ${value('nodejs_external_memory_bytes')} MB`,
      };
    },
    stop: () => clearInterval(timer),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function soak(minutes: number): Promise<void> {
  const warmMinutes = Number(process.env.WARM_MIN ?? Math.min(5, Math.floor(minutes / 3)));
  const sink = await startSink();
  const broker = await startMosquitto();
  const peer = await startModbusPeer();
  const modbusPort = await freePort();
  const proxyPort = await freePort();
  const env = {
    ...everyOutputEnvironment({ modbusPort, proxyPort, sinkPort: sink.port, brokerUrl: broker?.url }),
    METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(soakActions(sink.port, peer.port)),
    METER_GATEWAY_SERVICES_METRICS_PROCESS: 'true',
  };
  console.log(
    `soak: ${minutes} min, every output on${broker ? '' : ' (no mosquitto here: MQTT off)'}, 4 SSE clients,`,
  );
  console.log(`actions every second (HTTP + Modbus write), node ${process.version}; ${describeStart()}`);
  const daemon = await startDaemon(env);
  console.log(`daemon pid ${daemon.child.pid}, HTTP on 127.0.0.1:${daemon.httpPort}`);
  await sleep(5000);
  const stopLoad = startLoad(daemon.httpPort, { modbusPort, proxyPort, sseClients: 4 });
  const stopCalls = callEverySecond(daemon.httpPort);
  const scraper = scrapeEvery15s(daemon.httpPort);
  const perMinute: Array<[number, number]> = [];
  const heapLows: Array<[number, number]> = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const rss: number[] = [];
    const anonymous: number[] = [];
    for (let s = 0; s < 6; s++) {
      await sleep(10_000);
      rss.push(rssKb(daemon.child.pid!) / 1024);
      anonymous.push(anonymousKb(daemon.child.pid!) / 1024);
    }
    perMinute.push([minute, median(rss)]);
    const heap = scraper.minute();
    if (Number.isFinite(heap.usedLow)) heapLows.push([minute, heap.usedLow]);
    console.log(
      `minute ${String(minute).padStart(3)}  RSS median ${median(rss).toFixed(1).padStart(6)} MB  ` +
        `max ${Math.max(...rss)
          .toFixed(1)
          .padStart(6)} MB  anonymous median ${median(anonymous).toFixed(1).padStart(6)} MB  ` +
        heap.text,
    );
  }
  scraper.stop();
  stopCalls();
  stopLoad();
  await daemon.stop();
  broker?.stop();
  peer.close();
  sink.server.close();
  const after = perMinute.filter(([minute]) => minute > warmMinutes);
  const lowsAfter = heapLows.filter(([minute]) => minute > warmMinutes);
  const all = perMinute.map(([, value]) => value);
  console.log(
    `after ${warmMinutes} min warm-up: slope ${slope(after).toFixed(3)} MB/min over ${after.length} min, ` +
      `median ${median(after.map(([, value]) => value)).toFixed(1)} MB, whole run ${Math.min(...all).toFixed(1)}-${Math.max(...all).toFixed(1)} MB; ` +
      `V8 heap used lows: slope ${slope(lowsAfter).toFixed(3)} MB/min`,
  );
}
