/**
 * Telegram-to-MQTT-subscriber latency (target: p99 within 2 ms of the mosquitto floor), in one
 * run with the floor of the load-generator bench's mqtt-latency.mjs against the same broker.
 *
 * One mosquitto (temp config, 127.0.0.1, set_tcp_nodelay true: the "mosquitto-nodelay" floor of
 * the load-generator bench), then REPS rounds, order rotated:
 *   floor            mqtt-latency.mjs --qos 0 --window 1 --nodelay --size <state payload size>:
 *                    publish() -> subscriber, two mqtt.js clients in one process
 *   telegram->state  last byte of a DSMR telegram written to the meter input's TCP socket -> Home
 *                    Assistant state message at a subscriber (meter input, DSMR decoder, store,
 *                    MQTT service, broker, subscriber decode); one telegram in flight
 *   ingest->report   store.ingest() of a decoded reading -> template message (report_interval 1,
 *                    receivedAt 1 s apart so every reading is due; the state message follows it)
 *   ingest->state    the same readings -> the state message, sent after the template message
 * and once, at the meter's real pace, telegram->report: telegrams 1 s apart, report_interval 1.
 * Everything is pinned to one CPU (like PIN=same) when taskset exists.
 *
 * Run: node --import tsx bench/mqtt-latency.ts [--count 5000] [--warmup 300] [--reps 3] [--paced 20]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../test/helpers/environment.js';
import { startMosquitto } from '../test/mqtt/mosquitto-broker.js';
import { GatewayRig, type Samples } from './mqtt-rig.js';

interface Row {
  target: string;
  rep: number;
  n: number;
  size: number;
  p50: number;
  p99: number;
  max: number;
}

const options = parseArgs({
  options: {
    count: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '300' },
    reps: { type: 'string', default: '3' },
    paced: { type: 'string', default: '20' },
  },
}).values;
const COUNT = Number(options.count);
const WARMUP = Number(options.warmup);
const REPS = Number(options.reps);
const PACED = Number(options.paced);
const CPU = cpus().length - 1;
const hasTaskset = spawnSync('sh', ['-c', 'command -v taskset'], { stdio: 'ignore' }).status === 0;

function percentile(sorted: Float64Array, p: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

function row(target: string, rep: number, samples: Samples): Row {
  const sorted = Float64Array.from(samples.latencies).sort();
  return {
    target,
    rep,
    n: sorted.length,
    size: samples.size,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

/** The shared floor script, copied beside a node_modules link so that it finds this repo's mqtt.js. */
function floorScript(): { script: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-floor-'));
  copyFileSync(join(repoRoot, '..', 'shared', 'bench', 'mqtt-latency.mjs'), join(dir, 'mqtt-latency.mjs'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  return {
    script: join(dir, 'mqtt-latency.mjs'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function floor(script: string, url: string, size: number, rep: number): Promise<Row> {
  const args = [
    script,
    '--url',
    url,
    '--count',
    String(COUNT),
    '--warmup',
    String(WARMUP),
    '--qos',
    '0',
    '--window',
    '1',
    '--nodelay',
    '--size',
    String(Math.max(64, size)),
  ];
  const command = hasTaskset ? 'taskset' : process.execPath;
  const child = spawn(command, hasTaskset ? ['-c', String(CPU), process.execPath, ...args] : args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  const line = out.split('\n').find((text) => text.startsWith('mqtt-latency: qos=0'));
  const field = (name: string): number => Number(new RegExp(`${name}=([0-9.]+)`).exec(line ?? '')?.[1]);
  if (!line) throw new Error(`floor run failed: ${out}`);
  return {
    target: 'floor (mqtt.js -> mosquitto -> mqtt.js)',
    rep,
    n: field(' n'),
    size: field('size'),
    p50: field('p50'),
    p99: field('p99'),
    max: field('max'),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function summary(rows: Row[]): void {
  const targets = [...new Set(rows.map((r) => r.target))];
  const floorP99 = median(rows.filter((r) => r.target.startsWith('floor')).map((r) => r.p99));
  console.log('\n| target | n x reps | payload B | p50 us | p99 us | max us | p99 - floor p99 |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const target of targets) {
    const mine = rows.filter((r) => r.target === target);
    const p99 = median(mine.map((r) => r.p99));
    console.log(
      `| ${target} | ${mine[0]!.n} x ${mine.length} | ${mine[0]!.size} | ${median(mine.map((r) => r.p50)).toFixed(1)} | ${p99.toFixed(1)} | ` +
        `${Math.max(...mine.map((r) => r.max)).toFixed(1)} | ${target.startsWith('floor') ? '-' : `${((p99 - floorP99) / 1000).toFixed(3)} ms`} |`,
    );
  }
}

async function main(): Promise<void> {
  if (hasTaskset)
    execFileSync('taskset', ['-a', '-p', '-c', String(CPU), String(process.pid)], { stdio: 'ignore' });
  const broker = await startMosquitto({ nodelay: true, cpu: hasTaskset ? CPU : undefined });
  const { script, cleanup } = floorScript();
  const rig = await GatewayRig.start(broker.url);
  const rows: Row[] = [];
  try {
    const probe = await rig.telegrams(10, 0, 'state');
    console.log(
      `mqtt-latency: broker ${broker.url} count=${COUNT} warmup=${WARMUP} reps=${REPS} state payload ${probe.size} B, pinned=${hasTaskset ? `cpu ${CPU}` : 'no'}`,
    );
    const runs: Array<(rep: number) => Promise<Row>> = [
      (rep) => floor(script, broker.url, probe.size, rep),
      async (rep) => {
        rig.setReportInterval(3600);
        return row('telegram -> state', rep, await rig.telegrams(COUNT, WARMUP, 'state'));
      },
      async (rep) => {
        rig.setReportInterval(1);
        return row('ingest -> report (template)', rep, await rig.ingests(COUNT, WARMUP, 'report'));
      },
      async (rep) => {
        rig.setReportInterval(1);
        return row('ingest -> state (after template)', rep, await rig.ingests(COUNT, WARMUP, 'state'));
      },
    ];
    for (let rep = 1; rep <= REPS; rep++) {
      for (let k = 0; k < runs.length; k++) {
        const result = await runs[(k + rep - 1) % runs.length]!(rep);
        rows.push(result);
        console.log(
          `rep ${rep} ${result.target}: n=${result.n} p50=${result.p50.toFixed(1)} us p99=${result.p99.toFixed(1)} us max=${result.max.toFixed(1)} us`,
        );
      }
    }
    if (PACED > 0) {
      rig.setReportInterval(3600); // a change restarts the schedule (the ingest runs moved it ahead)
      rig.setReportInterval(1);
      const paced = row('telegram -> report, 1 telegram/s', 1, await rig.telegrams(PACED, 2, 'report', 1000));
      rows.push(paced);
      console.log(
        `paced ${paced.target}: n=${paced.n} p50=${paced.p50.toFixed(1)} us p99=${paced.p99.toFixed(1)} us`,
      );
    }
    summary(rows);
  } finally {
    await rig.stop();
    await broker.stop();
    cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`mqtt-latency: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
