// `npm run bench:rss`: resident memory of the real daemon process (VmRSS), with the default config
// (simulator + HTTP, what `npm start` runs), the same scraped by Prometheus (/metrics every second), and
// with every output on and in use (/metrics scraped too). Targets
// (docs/architecture.md#performance): <= 65 MB default, <= 85 MB every output (median). Loopback
// only; bounded in time.
// The daemon starts as the service starts it: the node arguments the launcher gives the app and the
// unit's Environment= lines (systemd/meter-gateway.service), under the bench's own port settings.
// GATEWAY_ROOT=DIR measures another build (e.g. an older checkout) with the same load; NODE_FLAGS="..."
// adds V8 / node flags (e.g. --max-semi-space-size=1); BARE=1 leaves out the unit's environment.
import { spawnSync } from 'node:child_process';
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
  type Load,
} from './rss-daemon.js';
import { soak } from './rss-soak.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, localDate, localDayBounds } from '../src/prices/local-day.js';

const WARM_S = Number(process.env.WARM_S ?? 5);
const SAMPLE_S = Number(process.env.SAMPLE_S ?? 20);

interface Phase {
  median: number;
  max: number;
  anonymousMedian: number;
}

/** SAMPLE_S samples at 1 s of the process's resident and anonymous memory, under `load`. */
async function samplePhase(pid: number, httpPort: number, load: Load): Promise<Phase> {
  const stopLoad = startLoad(httpPort, load);
  const samples: number[] = [];
  const anonymous: number[] = [];
  for (let s = 0; s < SAMPLE_S; s++) {
    await sleep(1000);
    samples.push(rssKb(pid) / 1024);
    anonymous.push(anonymousKb(pid) / 1024);
  }
  stopLoad();
  samples.sort((a, b) => a - b);
  anonymous.sort((a, b) => a - b);
  const middle = Math.floor(samples.length / 2);
  return { median: samples[middle]!, max: samples[samples.length - 1]!, anonymousMedian: anonymous[middle]! };
}

function formatPhase(name: string, phase: Phase): string {
  return `${name.padEnd(44)} median ${phase.median.toFixed(1).padStart(6)} MB   max ${phase.max.toFixed(1).padStart(6)} MB   anonymous median ${phase.anonymousMedian.toFixed(1).padStart(6)} MB`;
}

/**
 * One daemon under `load`; with `then`, the same process is sampled again under that load, so the
 * difference is what the added load costs without the spread between two processes.
 */
async function measure(
  name: string,
  env: Record<string, string>,
  load: Load,
  then?: Load,
  prepare?: (state: string) => void,
): Promise<string> {
  const daemon = await startDaemon(env, prepare);
  await sleep(WARM_S * 1000);
  const first = await samplePhase(daemon.child.pid!, daemon.httpPort, load);
  const second = then
    ? await samplePhase(daemon.child.pid!, daemon.httpPort, { ...load, ...then })
    : undefined;
  await daemon.stop();
  if (!second) return formatPhase(name, first);
  const delta = (second.median - first.median).toFixed(1);
  return `${formatPhase(name, first)}\n${formatPhase('  then /metrics scraped every second', second)}   added ${delta} MB`;
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

/**
 * The default config with a year of day-ahead quarter prices in the state folder (367 day files
 * from today back, and tomorrow), which the price store holds in memory
 * (docs/architecture.md#prices). The source points at a closed loopback port: every day it needs is
 * there, so it asks nothing. Target: <= 3 MB over the default row.
 */
async function yearOfPrices(defaultRow: string): Promise<string> {
  const prepare = (state: string) => {
    const folder = join(state, 'prices');
    mkdirSync(folder, { recursive: true });
    const today = localDate(Date.now());
    for (let back = -1; back < 367; back += 1) {
      const day = addDays(today, -back);
      const bounds = localDayBounds(day)!;
      const count = (bounds.end - bounds.start) / 900_000;
      const spot = Array.from(
        { length: count },
        (_, i) => Math.round((50 + 40 * Math.sin(i / 7) + back) * 100) / 100,
      );
      const price = spot.map((value) => Math.round((value / 1000) * 1e9) / 1e9);
      const file = {
        version: 2,
        day,
        source: 'energy_charts',
        zone: 'BE',
        currency: 'EUR',
        fetched_at: new Date().toISOString(),
        start: new Date(bounds.start).toISOString(),
        quarters: count,
        spot,
        import: price,
        export: price,
      };
      writeFileSync(join(folder, `${day}.json`), `${JSON.stringify(file)}\n`);
    }
  };
  const env = {
    METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
    METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'energy_charts',
    METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: 'BE',
    METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENERGY_CHARTS: 'http://127.0.0.1:9',
  };
  const row = await measure('default config + a year of quarter prices', env, {}, undefined, prepare);
  const median = (text: string) => Number(/median\s+([\d.]+) MB/.exec(text)?.[1]);
  return `${row}\n${''.padEnd(44)} added: ${(median(row) - median(defaultRow)).toFixed(2)} MB (target <= 3 MB)`;
}

async function table(): Promise<void> {
  const sink = await startSink();
  const sinkPort = sink.port;
  const broker = await startMosquitto();
  console.log(
    `daemon resident memory (VmRSS), node ${process.version}: ${WARM_S} s warm-up, ${SAMPLE_S} samples at 1 s under load`,
  );
  console.log(describeStart());
  const defaultRow = await measure('default config (simulator + HTTP + mDNS)', {}, {}, { metrics: true });
  console.log(defaultRow);
  if (process.argv.includes('--prices')) {
    console.log(await yearOfPrices(defaultRow));
    broker?.stop();
    sink.server.close();
    return;
  }
  console.log(await yearOfPrices(defaultRow));
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
  const everything = everyOutputEnvironment({ modbusPort, proxyPort, sinkPort, brokerUrl: broker?.url });

  console.log(
    await measure(`every output on${broker ? '' : ' (no mosquitto here: MQTT off)'}`, everything, {
      modbusPort,
      proxyPort,
      metrics: true,
    }),
  );
  broker?.stop();
  sink.server.close();
}

const soakAt = process.argv.indexOf('--soak');
if (soakAt >= 0) await soak(Number(process.argv[soakAt + 1] ?? 30));
else await table();
