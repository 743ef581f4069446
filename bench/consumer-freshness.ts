// Both consumer personalities, measured from the serial line: `npm run bench:consumers`.
// The daemon runs as the service starts it (bench/rss-daemon.ts) with its meter on one end of a
// socat pseudo-terminal pair (`serial:<pty>?protocol=dsmr`); this bench writes DSMR 5.0.2 telegrams
// (the simulator's builder) on the other end.
// 1. Freshness: from the last byte of a telegram written on the pty until the answer carries its power
//    (each telegram changes the total power by 1 W), polled every millisecond (POLL_GAP_MS) over one
//    keep-alive connection: HomeWizard `GET /api/v1/data`, Shelly `GET /rpc/EM.GetStatus?id=0` and Shelly UDP
//    JSON-RPC `EM.GetStatus`, round robin, TELEGRAMS per target. Target: p99 <= 20 ms.
// 2. Cost: the daemon's CPU time (utime + stime of /proc/<pid>/stat) over 20 s with the meter at one
//    telegram a second and no consumer, against 20 s of 10 requests a second per personality.
//    Target: under 1 % of a core added.
// Linux only (ptys, /proc); needs socat.
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { initialState, seededRandom } from '../src/meter/simulator/model.js';
import { buildTelegram } from '../src/meter/simulator/telegram.js';
import { describeStart, startDaemon } from './rss-daemon.js';

const TELEGRAMS = Number(process.env.TELEGRAMS ?? 300);
const WARMUP = 30;
const CPU_SECONDS = Number(process.env.CPU_SECONDS ?? 20);
const CLK_TCK = 100;
const POLL_GAP_MS = Number(process.env.POLL_GAP_MS ?? 1);

/** A telegram whose total net power is `watts` (three phases, import). */
function telegramOf(watts: number, now: number): Buffer {
  const state = initialState(seededRandom(7), now);
  const [l1, l2, l3] = state.phases;
  l1.netKw = (watts - 500) / 1000;
  l2.netKw = 0.3;
  l3.netKw = 0.2;
  return buildTelegram(state, now);
}

async function ptyPair(): Promise<{ daemonEnd: string; benchEnd: string; pid: number; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'consumer-bench-pty-'));
  const daemonEnd = join(dir, 'daemon');
  const benchEnd = join(dir, 'bench');
  const socat = spawn(
    'socat',
    ['-d', '-d', `pty,raw,echo=0,link=${daemonEnd}`, `pty,raw,echo=0,link=${benchEnd}`],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(existsSync(daemonEnd) && existsSync(benchEnd)); i++) await sleep(50);
  return {
    daemonEnd,
    benchEnd,
    pid: socat.pid!,
    close: () => {
      socat.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Probe = () => Promise<number | null>;

function httpProbe(url: string, field: 'active_power_w' | 'total_act_power'): Probe {
  return async () => {
    const response = await fetch(url);
    const body = (await response.json()) as Record<string, number | null>;
    return body[field] ?? null;
  };
}

function udpProbe(port: number): { probe: Probe; close(): void } {
  const socket = createSocket('udp4');
  let id = 0;
  let pending: ((power: number | null) => void) | undefined;
  socket.on('message', (message) => {
    const frame = JSON.parse(message.toString()) as { id: number; result?: { total_act_power: number } };
    if (frame.id === id) pending?.(frame.result?.total_act_power ?? null);
  });
  return {
    // The frame Marstek batteries send (AstraMeter's and uni-meter's documentation): EM.GetStatus id 0.
    probe: () =>
      new Promise((resolve) => {
        pending = resolve;
        socket.send(
          JSON.stringify({ id: ++id, src: 'bench', method: 'EM.GetStatus', params: { id: 0 } }),
          port,
          '127.0.0.1',
        );
      }),
    close: () => socket.close(),
  };
}

/**
 * The machine's own tail: round trips to a UDP echo in another node process that does no work. On
 * a loaded host its p99 shows how long a runnable process waits for a core, whatever it serves.
 */
async function echoBaseline(count: number): Promise<number[]> {
  const echo = spawn(
    process.execPath,
    [
      '-e',
      "const s=require('node:dgram').createSocket('udp4');s.on('message',(m,r)=>s.send(m,r.port,r.address));" +
        "s.bind(0,'127.0.0.1',()=>console.log(s.address().port))",
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const port = await new Promise<number>((resolve) =>
    echo.stdout.once('data', (d: Buffer) => resolve(Number(d.toString()))),
  );
  const socket = createSocket('udp4');
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      socket.once('message', () => resolve());
      socket.send(String(i), port, '127.0.0.1');
    });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    await sleep(10);
  }
  socket.close();
  echo.kill();
  return times;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/**
 * ms the threads of a process (the event loop and libuv's pool, which reads the serial port) waited
 * for a core so far: field 2 (run-queue wait, ns) of each /proc/<pid>/task/<tid>/schedstat.
 */
function waitedMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
  return ns / 1e6;
}

/** The processes whose waits DIAG=1 reports: the daemon and socat. */
const watched: { daemon?: number; socat?: number } = {};

/** Writes one telegram and polls `probe` until it answers `watts`; ms from the write's return. */
async function freshnessOnce(fd: number, probe: Probe, watts: number): Promise<number> {
  const telegram = telegramOf(watts, Date.now());
  writeSync(fd, telegram);
  const waitedBefore = [watched.daemon, watched.socat].map((pid) => (pid ? waitedMs(pid) : 0));
  const start = process.hrtime.bigint();
  let polls = 0;
  let longest = 0;
  for (;;) {
    const asked = process.hrtime.bigint();
    const power = await probe();
    polls++;
    longest = Math.max(longest, Number(process.hrtime.bigint() - asked) / 1e6);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (power !== null && Math.abs(power - watts) < 0.5) {
      // DIAG=1: where a slow sample's time went, one long answer (the daemon's event loop or its
      // process was held) or many quick stale answers (the telegram was late to be read).
      if (process.env.DIAG === '1' && elapsed > 20) {
        const [daemon, socat] = [watched.daemon, watched.socat].map((pid, n) =>
          pid ? (waitedMs(pid) - waitedBefore[n]!).toFixed(1) : '?',
        );
        console.log(
          `slow sample ${elapsed.toFixed(1)} ms: ${polls} polls, longest answer ${longest.toFixed(1)} ms, ` +
            `waited for a core: daemon ${daemon} ms, socat ${socat} ms`,
        );
      }
      return elapsed;
    }
    if (Number(process.hrtime.bigint() - start) > 5e9) throw new Error(`no answer of ${watts} W in 5 s`);
    // 1 ms between polls: a resolution of about a millisecond without the bench and the daemon
    // taking both cores of a small host from socat and the daemon's serial read (back to back,
    // thousands of polls per telegram starved them; DIAG=1 showed it).
    await sleep(POLL_GAP_MS);
  }
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

async function cpuOver(pid: number, probes: Probe[]): Promise<number> {
  const timers = probes.map((probe) => setInterval(() => void probe().catch(() => undefined), 100));
  const before = cpuSeconds(pid);
  await sleep(CPU_SECONDS * 1000);
  const used = cpuSeconds(pid) - before;
  timers.forEach(clearInterval);
  return (used / CPU_SECONDS) * 100;
}

/** Freshness of each target, round robin, and the host's own tail beside it. */
async function freshness(fd: number, targets: [string, Probe][]): Promise<void> {
  // The daemon's serial source opens the pty and its first reading gets through.
  for (let i = 0; ; i++) {
    try {
      await freshnessOnce(fd, targets[0]![1], 900);
      break;
    } catch (error) {
      if (i > 30) throw error;
      await sleep(500);
    }
  }
  console.log(`Consumer personalities, ${describeStart()}; meter on a socat pty (DSMR)`);
  const times = targets.map((): number[] => []);
  for (let i = 0; i < (WARMUP + TELEGRAMS) * targets.length; i++) {
    const target = i % targets.length;
    const elapsed = await freshnessOnce(fd, targets[target]![1], 1000 + (i % 997));
    if (i >= WARMUP * targets.length) times[target]!.push(elapsed);
    await sleep(10);
  }
  console.log('\n| last telegram byte on the pty -> answer carries it | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|');
  times.push(await echoBaseline(TELEGRAMS));
  [...targets.map(([name]) => name), 'baseline: UDP echo round trip to an idle node process'].forEach(
    (name, n) => {
      const sorted = times[n]!.sort((a, b) => a - b);
      const cell = (p: number) => percentile(sorted, p).toFixed(2);
      console.log(
        `| ${name}, ${sorted.length} samples | ${cell(50)} | ${cell(99)} | ${sorted.at(-1)!.toFixed(2)} |`,
      );
    },
  );
}

/** The daemon's CPU idle and under 10 requests a second per target, the meter at its pace. */
async function cost(fd: number, pid: number, targets: [string, Probe][]): Promise<void> {
  // A meter's pace: one telegram a second (DSMR 5), with power changing.
  let watts = 1000;
  const meter = setInterval(
    () => writeSync(fd, telegramOf((watts = watts === 1000 ? 1001 : 1000), Date.now())),
    1000,
  );
  await sleep(2000);
  const rows: [string, number][] = [['idle: meter at 1 telegram/s, no consumer', await cpuOver(pid, [])]];
  for (const [name, probe] of targets) rows.push([`${name} at 10 req/s`, await cpuOver(pid, [probe])]);
  rows.push([
    'all three at 10 req/s each',
    await cpuOver(
      pid,
      targets.map(([, probe]) => probe),
    ),
  ]);
  clearInterval(meter);
  const idle = rows[0]![1];
  console.log(
    `\nload average during the run (/proc/loadavg): ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
  );
  console.log(`\n| daemon CPU over ${CPU_SECONDS} s | % of a core | added to idle |`);
  console.log('|---|---:|---:|');
  for (const [name, pct] of rows)
    console.log(
      `| ${name} | ${pct.toFixed(2)} | ${name.startsWith('idle') ? '' : (pct - idle).toFixed(2)} |`,
    );
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v socat']).status !== 0) throw new Error('socat is not installed');
  const pty = await ptyPair();
  const udpPort = 20000 + (process.pid % 20000);
  const daemon = await startDaemon({
    METER_GATEWAY_METER_SOURCE: `serial:${pty.daemonEnd}?protocol=dsmr`,
    METER_GATEWAY_SERVICES_BROADCAST: 'false',
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
    METER_GATEWAY_LOG_LEVEL: 'warn',
  });
  const fd = openSync(pty.benchEnd, 'w');
  watched.daemon = daemon.child.pid;
  watched.socat = pty.pid;
  const base = `http://127.0.0.1:${daemon.httpPort}`;
  const udp = udpProbe(udpPort);
  const targets: [string, Probe][] = [
    ['HomeWizard GET /api/v1/data', httpProbe(`${base}/api/v1/data`, 'active_power_w')],
    ['Shelly GET /rpc/EM.GetStatus?id=0', httpProbe(`${base}/rpc/EM.GetStatus?id=0`, 'total_act_power')],
    [`Shelly UDP EM.GetStatus (port ${udpPort})`, udp.probe],
  ];
  try {
    await freshness(fd, targets);
    await cost(fd, daemon.child.pid!, targets);
  } finally {
    udp.close();
    closeSync(fd);
    await daemon.stop();
    pty.close();
  }
}

await main();
