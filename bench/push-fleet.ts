// Fleet push sizing (docs/guide/fleet-push.md#sizing): N simulated gateways, each the daemon's own push
// client (src/push/push-client.ts) with 3 meters and a day of quarter hours (96) of backlog, push by
// remote_write into one local VictoriaMetrics single node on 127.0.0.1; then every sample is counted
// back. Reports the gateway side's CPU per batch and resident memory per target, the engine's ingest
// rate, and the extra resident memory of one daemon whose cursor is a year back (a real history
// recorder over a year of quarter records).
//
//   npm run build && node dist/bench/push-fleet.js [gateways=1000] [parallel=50]
//
// The daemon runs with --max-semi-space-size=4 (scripts/launcher.ts); measure the year drain as it runs:
//   MALLOC_MMAP_THRESHOLD_=16384 node --expose-gc --max-semi-space-size=4 dist/bench/push-fleet.js 1 1
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.js';
import { createAppContext } from '../src/context.js';
import { ConfigStore } from '../src/config/config-store.js';
import { registerConfigFormats } from '../src/config-formats.js';
import { COUNTERS_CODEC, type QuarterCounters } from '../src/history/quarter-counters.js';
import { HistoryRecorder } from '../src/history/recorder.js';
import { QUARTERS_FILE, type QuarterRecord } from '../src/history/quarter-records.js';
import { HEADER_SIZE, ringFileSize, ringHeader } from '../src/history/ring-file.js';
import { TIERS } from '../src/history/tiers.js';
import { createLogger } from '../src/log.js';
import { PushClient, type QuarterSource } from '../src/push/push-client.js';
import { Refusals } from '../src/refusals.js';
import { flushVictoriaMetrics, startVictoriaMetrics, vmQuery } from '../test/push/engines.js';

const GATEWAYS = Number(process.argv[2] ?? 1000);
const PARALLEL = Number(process.argv[3] ?? 50);
const METERS = ['main', 'pv', 'ev'] as const;
const ROLES = { main: 'grid', pv: 'pv', ev: 'ev' } as const;
const QUARTERS = 96;
const Q = 900;

const logger = createLogger('error');
const cleanups: Array<() => void> = [];
const t = { after: (fn: () => void) => cleanups.push(fn) };
const rssMb = () => process.memoryUsage().rss / 1048576;

function counters(t0: number, i: number, seed: number): QuarterCounters {
  return {
    t: t0,
    at: t0 * 1000 + 899_000,
    eIn: 1000 + seed + i * 0.25,
    eOut: 500 + seed + i * 0.1,
    eInT1: null,
    eInT2: null,
    eOutT1: null,
    eOutT2: null,
  };
}

/** A day of recorded quarters of 3 meters, kept as the recorder's `quarters()` answers them. */
function daySource(seed: number, first: number): QuarterSource {
  const records = new Map<string, QuarterRecord[]>(
    METERS.map((meter, m) => [
      meter,
      Array.from({ length: QUARTERS }, (_, i) => ({ counters: counters(first + i * Q, i, seed * 10 + m) })),
    ]),
  );
  return {
    meters: () => METERS.map((id) => ({ id, role: ROLES[id] })),
    quarters: (id, after, until, limit) =>
      Promise.resolve(
        records
          .get(id)!
          .filter((r) => r.counters.t > after && r.counters.t <= until)
          .slice(0, limit),
      ),
  };
}

/** A year of quarter records for one meter, written as the recorder's ring file would hold them. */
function writeYearRing(directory: string, last: number): number {
  const tier = TIERS['15m'];
  const path = join(directory, QUARTERS_FILE);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, ringHeader(tier, COUNTERS_CODEC), 0, HEADER_SIZE, 0);
    const count = tier.capacity - 96;
    const records = Buffer.alloc(count * COUNTERS_CODEC.size);
    const first = last - (count - 1) * Q;
    // Slots in ring order need not be contiguous in time; write each at its slot.
    for (let i = 0; i < count; i++) {
      const t0 = first + i * Q;
      COUNTERS_CODEC.encode(counters(t0, i, 0)).copy(records, i * COUNTERS_CODEC.size);
      const slot = tier.numberOf(t0) % tier.capacity;
      writeSync(
        fd,
        records,
        i * COUNTERS_CODEC.size,
        COUNTERS_CODEC.size,
        HEADER_SIZE + slot * COUNTERS_CODEC.size,
      );
    }
    // The file has its full size, like a ring file created by the recorder.
    writeSync(fd, Buffer.alloc(1), 0, 1, ringFileSize(tier, COUNTERS_CODEC) - 1);
    return count;
  } finally {
    closeSync(fd);
  }
}

async function yearBacklog(base: string, url: string): Promise<string> {
  const state = join(base, 'year');
  mkdirSync(join(state, 'history'), { recursive: true });
  const now = Date.now();
  const last = Math.floor(now / 1000 / Q) * Q - 2 * Q;
  const count = writeYearRing(join(state, 'history'), last);
  const config = ConfigStore.load({ env: { METER_GATEWAY_PATHS_STATE: state } });
  const ctx = createAppContext({ config, logger, now: Date.now, meterInterface: 'SIMULATOR' });
  const recorder = new HistoryRecorder(ctx, logger);
  await recorder.start();
  const source: QuarterSource = {
    meters: () => [{ id: 'main', role: 'grid' }],
    quarters: (_id, after, until, limit) => recorder.quarters(after, until, limit),
  };
  const make = () =>
    new PushClient({
      settings: { id: 'year', kind: 'remote_write', url, retention_days: 400 },
      secrets: undefined,
      source,
      directory: join(state, 'push'),
      gateway: 'YEAR00000000',
      clock: systemClock,
      now: Date.now,
      logger,
      refusals: ctx.refusals,
    });
  // Warm-up: the last 10 quarters, so got, protobufjs and snappyjs are loaded before the measure
  // (a daemon that pushes has them loaded whatever its backlog).
  mkdirSync(join(state, 'push'), { recursive: true });
  writeFileSync(join(state, 'push', 'year.json'), JSON.stringify({ cursor: last - 10 * Q }));
  const warm = make();
  warm.load();
  await warm.drain();
  writeFileSync(join(state, 'push', 'year.json'), JSON.stringify({ cursor: last - 400 * 86_400 }));
  const client = make();
  client.load();
  global.gc?.();
  global.gc?.();
  const before = rssMb();
  const heapBefore = process.memoryUsage();
  let peak = before;
  // Peak heap in use during the drain: garbage not yet collected counts, since its pages are resident.
  let peakHeap = heapBefore.heapUsed;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const started = Date.now();
  const outcome = await client.drain();
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  global.gc?.();
  const after = rssMb();
  const heapAfter = process.memoryUsage();
  const heapDelta = `heap used at most +${((peakHeap - heapBefore.heapUsed) / 1048576).toFixed(1)} MB during the drain, heap used ${((heapAfter.heapUsed - heapBefore.heapUsed) / 1048576).toFixed(1)} MB, heap total ${((heapAfter.heapTotal - heapBefore.heapTotal) / 1048576).toFixed(1)} MB, external ${((heapAfter.external - heapBefore.external) / 1048576).toFixed(1)} MB`;
  await recorder.stop();
  ctx.store.close();
  const sent = client.status().counts.sent;
  return `one-year cursor: ${count} quarters, ${sent} samples sent (${outcome}) in ${((Date.now() - started) / 1000).toFixed(1)} s; resident memory +${(peak - before).toFixed(1)} MB at most over the drain, +${(after - before).toFixed(1)} MB after it (${heapDelta})`;
}

async function main(): Promise<void> {
  registerConfigFormats();
  const base = mkdtempSync(join(tmpdir(), 'push-fleet-'));
  const vm = await startVictoriaMetrics(t);
  const url = `${vm.base}/api/v1/write`;
  try {
    const year = await yearBacklog(base, url);
    const first = Math.floor((Date.now() - 26 * 3_600_000) / 1000 / Q) * Q;
    global.gc?.();
    const rssBefore = rssMb();
    const clients = Array.from(
      { length: GATEWAYS },
      (_, g) =>
        new PushClient({
          settings: { id: 'fleet', kind: 'remote_write', url, site: `site-${g % 50}` },
          secrets: undefined,
          source: daySource(g, first),
          directory: join(base, `gw-${g}`),
          gateway: g.toString(16).toUpperCase().padStart(12, '0'),
          clock: systemClock,
          now: Date.now,
          logger,
          refusals: new Refusals(),
        }),
    );
    for (const client of clients) client.load();
    const cpu = process.cpuUsage();
    const started = Date.now();
    let next = 0;
    let peakRss = rssMb();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb())), 50);
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < clients.length) await clients[next++]!.drain();
      }),
    );
    clearInterval(sampler);
    const wallS = (Date.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const batches = clients.reduce((n, c) => n + c.status().counts.batches, 0);
    const sent = clients.reduce((n, c) => n + c.status().counts.sent, 0);
    const retried = clients.reduce((n, c) => n + c.status().counts.retried, 0);
    global.gc?.();
    const rssAfter = rssMb();
    await flushVictoriaMetrics(vm);
    const stored = await vmQuery(
      vm,
      'sum(count_over_time({__name__=~"meter_active_energy_(import|export)_joules_total",site=~"site-.*"}[2d]))',
      Date.now(),
    );
    const expected = GATEWAYS * METERS.length * QUARTERS * 2;
    console.log(
      [
        `fleet push bench: ${GATEWAYS} gateways x ${METERS.length} meters x ${QUARTERS} quarters (a day), remote_write into VictoriaMetrics single node, ${PARALLEL} gateways at a time, one machine (${(await import('node:os')).cpus().length} cores) for both sides`,
        `samples: ${sent} sent, ${stored[0]?.value[1] ?? 0} stored of ${expected} expected; ${batches} batches, ${retried} retried`,
        `wall ${wallS.toFixed(1)} s: ${Math.round(sent / wallS)} samples/s end to end`,
        `gateway CPU: ${((used.user + used.system) / 1000 / batches).toFixed(2)} ms per batch (${QUARTERS} quarters x ${METERS.length} meters x 2 series = ${QUARTERS * METERS.length * 2} samples; encoding, snappy, HTTP)`,
        `resident memory: ${(((rssAfter - rssBefore) * 1024) / GATEWAYS).toFixed(1)} kB per target after the run (${GATEWAYS} targets, +${(rssAfter - rssBefore).toFixed(1)} MB; peak +${(peakRss - rssBefore).toFixed(1)} MB during it, the backlogs themselves held in memory by the simulation)`,
        year,
      ].join('\n'),
    );
  } finally {
    await vm.stop();
    for (const cleanup of cleanups) cleanup();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
