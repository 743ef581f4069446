// A meter in the list whose history is not open (its recorder starts or restarts after a change of
// the meter) holds the push: neither the quarters' nor the minutes' cursor moves past its records,
// the status names it, and once its history is open every meter's records go out.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { PushClient, type QuarterSource } from '../../src/push/push-client.js';
import { startHttpContext } from '../helpers/http-context.js';
import { meterReading, setClock } from '../history/history-fixture.js';
import { QUARTER_MS, quarterEnd, quarterHoursAgo, sourceOf, startMeter, stopMeter } from './push-fixture.js';

test('a listed meter whose history is not open holds the quarters and minutes; nothing of it is skipped', async (t) => {
  const got: Array<{ meter: string; name: string; timestamps: number[] }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST')
        for (const line of Buffer.concat(chunks).toString().split('\n'))
          if (line !== '') {
            const series = JSON.parse(line) as {
              metric: { __name__: string; meter: string };
              timestamps: number[];
            };
            got.push({
              meter: series.metric.meter,
              name: series.metric.__name__,
              timestamps: series.timestamps,
            });
          }
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  const pv = await startMeter(h, 'pv', 'pv');
  t.after(async () => {
    await stopMeter(main);
    await stopMeter(pv);
    await h.close();
  });
  // Four quarters of both meters, the last minute of each with readings.
  const first = quarterHoursAgo(2);
  for (let i = 1; i <= 4; i++) {
    setClock(h, first + i * QUARTER_MS - 30_000);
    main.ctx.store.ingest(meterReading(first + i * QUARTER_MS - 30_000, { pIn: 1, pOut: 0 }));
    pv.ctx.store.ingest(meterReading(first + i * QUARTER_MS - 30_000, { pIn: 0, pOut: 2 }));
    await quarterEnd(
      h,
      [
        { meter: main, eIn: 100 + i, eOut: 1 },
        { meter: pv, eIn: 1, eOut: 50 + i },
      ],
      first + i * QUARTER_MS,
    );
  }
  setClock(h, Date.now());
  // pv's history: closed for the quarters and the minutes, then open for the quarters only, then both.
  let quartersOpen = false;
  let minutesOpen = false;
  const both = sourceOf([main, pv]);
  const source: QuarterSource = {
    meters: both.meters,
    quarters: (id, after, until, limit) =>
      id === 'pv' && !quartersOpen ? Promise.resolve(undefined) : both.quarters(id, after, until, limit),
    minutes: (id, from, to) =>
      id === 'pv' && !minutesOpen ? Promise.resolve(undefined) : both.minutes!(id, from, to),
  };
  const { port } = server.address() as { port: number };
  const client = new PushClient({
    settings: {
      id: 'fleet',
      kind: 'vm_import',
      url: `http://127.0.0.1:${port}/api/v1/import`,
      what: ['quarters', 'minutes'],
    },
    secrets: undefined,
    source,
    directory: join(h.stateDir, 'push'),
    gateway: 'A1B2C3D4E5F6',
    clock: h.ctx.clock,
    now: h.clock.now,
    logger: h.ctx.logger,
    refusals: h.ctx.refusals,
    random: () => 0.5,
  });
  client.load();
  const cursorFile = () =>
    JSON.parse(readFileSync(join(h.stateDir, 'push', 'fleet.json'), 'utf8')) as {
      cursor: number;
      minutes_cursor?: number;
    };
  const before = cursorFile();
  assert.equal(await client.drain(), 'retry');
  assert.deepEqual(cursorFile(), before);
  assert.equal(got.length, 0);
  assert.equal(client.status().state, 'backoff');
  assert.match(client.status().last_error ?? '', /meter pv/);
  assert.equal(client.status().counts.retried, 0, 'not a retry of the receiver');
  // The quarters are sent; the minutes wait for pv's history in turn.
  quartersOpen = true;
  assert.equal(await client.drain(), 'retry');
  assert.equal(cursorFile().minutes_cursor, before.minutes_cursor);
  assert.ok(!got.some((series) => series.name.startsWith('meter_minute_')), 'no minute sent yet');
  minutesOpen = true;
  assert.equal(await client.drain(), 'empty');
  const ends = [1, 2, 3, 4].map((i) => first + i * QUARTER_MS);
  for (const meter of ['main', 'pv'])
    assert.deepEqual(
      got
        .filter((s) => s.meter === meter && s.name === 'meter_active_energy_export_joules_total')
        .flatMap((s) => s.timestamps),
      ends,
      `every quarter of ${meter}`,
    );
  for (const meter of ['main', 'pv'])
    assert.deepEqual(
      got
        .filter((s) => s.meter === meter && s.name.startsWith('meter_minute_'))
        .flatMap((s) => s.timestamps)
        .filter((ts, i, all) => all.indexOf(ts) === i)
        .sort((a, b) => a - b),
      ends,
      `every minute with readings of ${meter}`,
    );
});
