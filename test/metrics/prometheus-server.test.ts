import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireCommand } from '../helpers/environment.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { send } from '../http/http-client.js';
import { TELEGRAM } from './belgian-telegram.js';
import { freePort } from '../helpers/ports.js';

/**
 * A real Prometheus server (Debian's package) on loopback scrapes the daemon every second; its HTTP query
 * API must give the meter's values: the signed power, the joule counters (sum over tariffs = the tariff
 * registers x 3.6e6) and `meter_up` falling to 0 when the meter goes silent, while the counters stay.
 */

interface QueryResult {
  status: string;
  data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

/** A meter on TCP: sends the telegram every 500 ms to whoever connects, until `silence()`. */
async function telegramServer(t: TestContext): Promise<{ port: number; silence: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setInterval(() => sockets.forEach((socket) => socket.write(TELEGRAM)), 500);
  const silence = () => clearInterval(timer);
  t.after(() => {
    silence();
    sockets.forEach((socket) => socket.destroy());
    server.close();
  });
  return { port: (server.address() as { port: number }).port, silence };
}

async function startPrometheus(t: TestContext, dir: string, target: string): Promise<string> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: gateway',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await send(base, 'GET', '/-/ready')).status === 200, `prometheus ready\n${log}`);
  return base;
}

async function waitFor(check: () => Promise<boolean>, what: string, deadlineMs = 60_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function query(base: string, promql: string): Promise<QueryResult['data']['result']> {
  const reply = await send(base, 'GET', `/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = reply.json() as QueryResult;
  assert.equal(body.status, 'success', reply.text);
  return body.data.result;
}

async function valueOf(base: string, promql: string): Promise<number | undefined> {
  const [first] = await query(base, promql);
  return first === undefined ? undefined : Number(first.value[1]);
}

/** A register of the telegram in kWh or kW, read from its text (not through the code under test). */
function register(code: string): number {
  const match = new RegExp(`^1-0:${code.replaceAll('.', '\\.')}\\(([\\d.]+)\\*`, 'm').exec(TELEGRAM);
  assert.ok(match, code);
  return Number(match[1]);
}

test('a real Prometheus scrapes /metrics: power, joule counters, meter_up to 0 when silent', async (t) => {
  if (!requireCommand(t, 'prometheus')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mg-prometheus-'));
  const meter = await telegramServer(t);
  const daemon = await startDaemonProcess(join(dir, 'state'), {
    METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${meter.port}?protocol=dsmr`,
    METER_GATEWAY_METER_TIMEOUT: '2',
  });
  t.after(() => daemon.stop());
  const prometheus = await startPrometheus(t, dir, daemon.baseUrl.replace('http://', ''));
  // After hooks run in the order they were added: the folder goes once Prometheus and the daemon
  // have stopped writing into it.
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // A few scrapes (1 s apart) with the meter up.
  await waitFor(async () => (await query(prometheus, 'meter_up == 1')).length === 1, 'meter_up 1 scraped');
  await waitFor(
    async () => ((await valueOf(prometheus, 'count_over_time(meter_up[1m])')) ?? 0) >= 3,
    'three scrapes',
  );
  const power = (register('1.7.0') - register('2.7.0')) * 1000;
  assert.equal(power, -4331);
  assert.equal(await valueOf(prometheus, 'meter_active_power_watts{meter="main"}'), power);
  const joules = await valueOf(prometheus, 'sum by (meter) (meter_active_energy_import_joules_total)');
  const expected = (register('1.8.1') + register('1.8.2')) * 3.6e6;
  assert.ok(
    joules !== undefined && Math.abs(joules - expected) <= expected * 1e-12,
    `${joules} != ${expected}`,
  );
  assert.equal(await valueOf(prometheus, 'up{job="gateway"}'), 1);

  // The meter goes silent: after meter.timeout the gateway says meter_up 0 and drops the power series.
  meter.silence();
  await waitFor(
    async () => (await valueOf(prometheus, 'meter_up{meter="main"}')) === 0,
    'meter_up 0',
    30_000,
  );
  await waitFor(
    async () => (await query(prometheus, 'meter_active_power_watts')).length === 0,
    'the power series marked stale',
    10_000,
  );
  const kept = await valueOf(prometheus, 'sum by (meter) (meter_active_energy_import_joules_total)');
  assert.equal(kept, joules, 'counters keep their last value while the meter is silent');
});
