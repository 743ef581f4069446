// The daemon process end to end with a loopback Energy-Charts server: fetch -> GET /api/v1/prices and
// /metrics, a `cheapest` action calling a recording loopback server on and off, and a restart with a
// warm cache that asks the source for nothing. The daemon's clock is shifted (MG_TEST_CLOCK_OFFSET_S)
// to 25 s before a quarter boundary, so the chosen quarter ends within the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLOCK_OFFSET_VARIABLE } from '../../src/context.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { rmSync } from 'node:fs';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { energyCharts } from './fixtures.js';
import { startPriceServer } from './price-server.js';

const Q = 900;
process.env.TZ = 'Europe/Brussels';

test(
  'daemon: prices fetched and served, a cheapest action runs on and off, a warm restart asks nothing',
  { timeout: 120_000 },
  async (t) => {
    // Removed after the daemons: `after` hooks run in the order they were added, and a daemon still
    // writing its state into the folder would make the removal fail.
    const state = tempDir('mg-prices-daemon-');
    const daemons: Array<{ stop(): Promise<unknown> }> = [];
    t.after(async () => {
      for (const running of daemons) await running.stop();
      rmSync(state, { recursive: true, force: true });
    });
    // The daemon's now: 25 s before the next quarter boundary.
    const real = Date.now();
    const boundary = Math.ceil((real + 40_000) / (Q * 1000)) * Q * 1000;
    const shifted = boundary - 25_000;
    const offsetS = Math.round((shifted - real) / 1000);
    const current = boundary / 1000 - Q; // the quarter the daemon is in
    // Every quarter at 50 EUR/MWh, the daemon's current one at -20.
    const prices = await startPriceServer((url) => {
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const times: number[] = [];
      for (let s = start - (start % Q); s <= end; s += Q) times.push(s);
      return {
        status: 200,
        body: energyCharts(
          times,
          times.map((s) => (s === current ? -20 : 50)),
        ),
      };
    });
    t.after(() => prices.close());
    const calls: Array<{ path: string; at: number }> = [];
    const recorder = createServer((request, response) => {
      calls.push({ path: request.url ?? '', at: Date.now() });
      response.end('ok');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    t.after(() => recorder.close());
    const target = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    const hhmm = (ms: number) => {
      const date = new Date(ms);
      return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
    };
    const env = {
      TZ: 'Europe/Brussels',
      [CLOCK_OFFSET_VARIABLE]: String(offsetS),
      METER_GATEWAY_LICENSE_TYPE: 'PLUS',
      METER_GATEWAY_SERVICES_COSTS_ENABLE: 'true',
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'energy_charts',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: 'BE',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENERGY_CHARTS: prices.url,
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          {
            id: 'cheap_on',
            cheapest: {
              quarters: 1,
              window: `${hhmm(current * 1000)}-${hhmm((current + 2 * Q) * 1000)}`,
              off: 'cheap_off',
            },
            requests: [{ http: { url: `${target}/on?price=\${price.now}` } }],
          },
          { id: 'cheap_off', requests: [{ http: { url: `${target}/off` } }] },
        ],
      }),
    };
    const daemon = await startDaemonProcess(state, env);
    daemons.push(daemon);
    await waitFor('today fetched', daemon.output, (output) =>
      /prices energy_charts \d{4}-\d\d-\d\d: \d+ of \d+ quarters stored/.test(output),
    );
    const answer = (await (await fetch(`${daemon.baseUrl}/api/v1/prices?day=today`)).json()) as {
      day: string;
      quarters: number;
      current: { spot: number; import: number; source: string };
      rank: number;
      status: string;
    };
    assert.ok([92, 96, 100].includes(answer.quarters));
    assert.equal(answer.current.spot, -20);
    assert.equal(answer.current.import, -0.02);
    assert.equal(answer.current.source, 'energy_charts');
    assert.equal(answer.rank, 1);
    const metrics = await (await fetch(`${daemon.baseUrl}/metrics`)).text();
    assert.match(metrics, /meter_gateway_price_eur_per_kwh\{direction="import"\} -0\.02/);
    const system = (await (await fetch(`${daemon.baseUrl}/api/v1/system`)).json()) as {
      services: Record<string, { status?: string }>;
    };
    assert.equal(system.services['prices']?.status, answer.status);
    // The cheapest quarter is the current one: on now, off at its end (25 s after the start).
    await waitFor(
      'the on call',
      () => calls.map((c) => c.path).join(' '),
      (paths) => paths.includes('/on?price=-0.02'),
    );
    await waitFor(
      'the off call',
      () => calls.map((c) => c.path).join(' '),
      (paths) => paths.includes('/off'),
      {
        deadlineMs: 60_000,
      },
    );
    const on = calls.find((c) => c.path.startsWith('/on'))!;
    const off = calls.find((c) => c.path === '/off')!;
    assert.ok(off.at - on.at > 5_000, `off ${off.at - on.at} ms after on`);
    await daemon.stop();
    const stored = readFileSync(join(state, 'prices', answer.day + '.json'), 'utf8');
    const asked = prices.requests.length;
    const again = await startDaemonProcess(
      state,
      Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'METER_GATEWAY_ACTIONS_DEFINITION')),
    );
    daemons.push(again);
    const warm = (await (await fetch(`${again.baseUrl}/api/v1/prices?day=today`)).json()) as {
      slots: unknown[];
    };
    assert.deepEqual(
      warm.slots,
      ((await (await fetch(`${again.baseUrl}/api/v1/prices?day=today`)).json()) as { slots: unknown[] })
        .slots,
    );
    assert.equal(
      prices.requests.filter(
        (url) =>
          Number(url.searchParams.get('start')) <= current && current < Number(url.searchParams.get('end')),
      ).length,
      1,
    );
    assert.ok(prices.requests.length - asked <= 1, 'at most tomorrow asked again');
    assert.equal(readFileSync(join(state, 'prices', answer.day + '.json'), 'utf8'), stored);
  },
);
