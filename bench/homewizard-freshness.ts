// HomeWizard personality: freshness and cost.
// 1. Freshness, in process: from the last byte of a DSMR telegram handed to the decoder to
//    `GET /api/v1/data` over loopback HTTP answering that telegram's power (500 telegrams whose
//    import power changes every time). The path is the daemon's: decoder.push -> ReadingStore.ingest
//    -> the route's once-per-reading serialisation -> the HTTP answer. Target: p99 <= 20 ms.
// 2. Cost: a daemon child process (simulator meter, personality on) polled at 10 requests per second
//    for 20 s; its CPU time (utime + stime from /proc/<pid>/stat) against 20 s without polling.
//    Target: the polling adds under 1 % of a core.
//
// Run: `npm run build && node dist/bench/homewizard-freshness.js` (needs the capture corpus; Linux).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc16Arc } from '../src/checksum/crc16.js';
import { registerHomewizardPersonality } from '../test/homewizard/homewizard-output.js';
import { crcHex } from '../src/meter/dsmr/crc16-arc.js';
import { createDsmrDecoder } from '../src/meter/dsmr/decoder.js';
import { corpusDir } from '../test/helpers/environment.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';
import { startHttpContext } from '../test/helpers/http-context.js';

const TELEGRAMS = 500;
const WARMUP = 50;

function telegramWithPower(template: string, kw: number): Buffer {
  const body = template.replace(
    /1-0:1\.7\.0\(\d+\.\d+\*kW\)/,
    `1-0:1.7.0(${kw.toFixed(3).padStart(6, '0')}*kW)`,
  );
  const text = body.slice(0, body.indexOf('!') + 1);
  return Buffer.from(`${text}${crcHex(crc16Arc(Buffer.from(text, 'latin1')))}\r\n`, 'latin1');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

async function freshness(): Promise<void> {
  const http = await startHttpContext({
    env: { METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true', METER_GATEWAY_LOG_LEVEL: 'error' },
    meterInterface: 'P1',
    routes: registerHomewizardPersonality,
  });
  const template = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'), 'latin1').replace(
    /\r?\n/g,
    '\r\n',
  );
  const decoder = createDsmrDecoder();
  const times: number[] = [];
  for (let i = 0; i < WARMUP + TELEGRAMS; i++) {
    const kw = 1 + (i % 900) / 1000;
    const start = process.hrtime.bigint();
    for (const result of decoder.push(telegramWithPower(template, kw), Date.now())) {
      if (!result.ok) throw new Error(result.error.message);
      http.ctx.store.ingest(result.reading);
    }
    const data = (await (await fetch(`${http.baseUrl}/api/v1/data`)).json()) as { active_power_w: number };
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (Math.abs(data.active_power_w - kw * 1000) > 0.5)
      throw new Error(`answer ${data.active_power_w} W after ${kw} kW`);
    if (i >= WARMUP) times.push(elapsed);
  }
  await http.close();
  times.sort((a, b) => a - b);
  console.log('| telegram in -> /api/v1/data answers it | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| ${TELEGRAMS} telegrams | ${percentile(times, 50).toFixed(2)} | ${percentile(times, 99).toFixed(2)} | ${times.at(-1)!.toFixed(2)} |`,
  );
}

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat (clock ticks of 100 Hz). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function cost(): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), 'mg-hw-bench-'));
  const daemon = await startDaemonProcess(state, {
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
  });
  const pid = daemon.child.pid!;
  const seconds = 20;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(2000);
  let before = cpuSeconds(pid);
  await sleep(seconds * 1000);
  const idle = cpuSeconds(pid) - before;
  before = cpuSeconds(pid);
  for (let i = 0; i < seconds * 10; i++) {
    await (await fetch(`${daemon.baseUrl}/api/v1/data`)).text();
    await sleep(100);
  }
  const polled = cpuSeconds(pid) - before;
  await daemon.stop();
  rmSync(state, { recursive: true, force: true });
  const pct = (cpu: number) => ((cpu / seconds) * 100).toFixed(2);
  console.log(`| daemon CPU over ${seconds} s | % of a core |`);
  console.log('|---|---:|');
  console.log(`| idle (simulator, personality on) | ${pct(idle)} |`);
  console.log(`| polled at 10 req/s on /api/v1/data | ${pct(polled)} |`);
  console.log(`| added by the polling | ${pct(polled - idle)} |`);
}

console.log('HomeWizard personality: freshness and cost');
await freshness();
await cost();
