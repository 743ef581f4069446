import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { RECENT_SECONDS, RecentPower } from '../../src/history/recent-power.js';
import { registerHistoryRoutes } from '../../src/http/routes/history.js';
import { buildOpenApi } from '../../src/http/routes/openapi.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { send, type Reply } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';
import { meterReading, setClock } from './history-fixture.js';

process.env.TZ = 'Europe/Amsterdam';

/** 2026-11-26 12:00:30 local (11:00:30Z). */
const NOW = Date.parse('2026-11-26T11:00:30Z');
const NOW_S = NOW / 1000;
const DAY = 86_400;

async function withHistory(
  run: (h: HttpTestContext, recorder: HistoryRecorder, recent: RecentPower) => Promise<void>,
): Promise<void> {
  let recorder: HistoryRecorder | undefined;
  let recent: RecentPower | undefined;
  const h = await startHttpContext({
    routes: (router, ctx) => {
      recorder = new HistoryRecorder(ctx, ctx.logger);
      recent = new RecentPower(ctx);
      registerHistoryRoutes(router, ctx, recorder, recent);
    },
  });
  try {
    setClock(h, NOW);
    await run(h, recorder!, recent!);
  } finally {
    await recent!.stop();
    await recorder!.stop();
    await h.close();
  }
}

async function conforms(
  h: HttpTestContext,
  path: string,
  reply: Reply,
  route = '/api/v1/history',
): Promise<void> {
  const doc = (await buildOpenApi(h.router, 'test')) as unknown as Parameters<typeof responseProblems>[0];
  const problems = responseProblems(
    doc,
    'GET',
    route,
    reply.status,
    String(reply.headers['content-type']),
    reply.text,
  );
  assert.deepEqual(problems, [], `${path}: ${reply.text}`);
}

test('GET /api/v1/history: defaults, open buckets at once, resolutions, and the OpenAPI document', async () => {
  await withHistory(async (h, recorder) => {
    const unstarted = await send(h.baseUrl, 'GET', '/api/v1/history');
    assert.equal(unstarted.status, 503);
    assert.equal(unstarted.json().error, 'service_unavailable');
    await conforms(h, 'not started', unstarted);
    await recorder.start();
    h.ctx.store.ingest(meterReading(NOW - 20_000, { pIn: 1.5, pOut: 0, eIn: 100, eOut: 5 }));
    h.ctx.store.ingest(meterReading(NOW, { pIn: 0.5, pOut: 0, eIn: 100.002, eOut: 5 }));

    const defaults = await send(h.baseUrl, 'GET', '/api/v1/history');
    assert.equal(defaults.status, 200);
    assert.equal(defaults.headers['cache-control'], 'no-store');
    await conforms(h, 'defaults', defaults);
    assert.deepEqual(defaults.json(), {
      resolution: '1m',
      from: NOW_S - DAY,
      to: NOW_S,
      points: [
        {
          t: NOW_S - 30,
          n: 2,
          p_in: { min: 0.5, mean: 1, max: 1.5 },
          p_out: { min: 0, mean: 0, max: 0 },
          e_in: 0.002,
          e_out: 0,
        },
      ],
    });
    const day = (await send(h.baseUrl, 'GET', '/api/v1/history?resolution=1d&from=2026-11-26')).json();
    assert.equal(day.resolution, '1d');
    assert.equal(day.from, Date.parse('2026-11-25T23:00:00Z') / 1000, 'a date alone is local midnight');
    assert.deepEqual(
      day.points.map((p: { t: number; n: number }) => [p.t, p.n]),
      [[day.from, 2]],
    );
    const quarter = await send(
      h.baseUrl,
      'GET',
      `/api/v1/history?resolution=15m&from=${NOW_S - 3600}&to=${NOW_S}`,
    );
    await conforms(h, '15m', quarter);
    assert.deepEqual(quarter.json().points[0].t, NOW_S - 30);
    const empty = (
      await send(h.baseUrl, 'GET', `/api/v1/history?from=${NOW_S - 7200}&to=${NOW_S - 3600}`)
    ).json();
    assert.deepEqual(empty.points, []);
    const head = await send(h.baseUrl, 'HEAD', '/api/v1/history');
    assert.equal(head.status, 200);
  });
});

test('from and to as Unix seconds or ISO 8601; resolution auto picks 1m, 15m or 1d', async () => {
  await withHistory(async (h, recorder) => {
    await recorder.start();
    const get = async (query: string) => (await send(h.baseUrl, 'GET', `/api/v1/history?${query}`)).json();
    const cases: Array<[string, { resolution: string; from: number; to: number }]> = [
      [
        'from=2026-11-26T10:00:00Z&to=2026-11-26T11:00:00Z',
        { resolution: '1m', from: NOW_S - 3630, to: NOW_S - 30 },
      ],
      ['from=2026-11-26T11:00:00%2B01:00', { resolution: '1m', from: NOW_S - 3630, to: NOW_S }],
      ['from=2026-11-26T12:00:00', { resolution: '1m', from: NOW_S - 30, to: NOW_S }], // local time
      ['from=2026-11-26T10:00:00.750Z&to=1795690830.5', { resolution: '1m', from: NOW_S - 3630, to: NOW_S }],
      [`from=${NOW_S - 2 * DAY}`, { resolution: '1m', from: NOW_S - 2 * DAY, to: NOW_S }],
      [`from=${NOW_S - 2 * DAY - 1}`, { resolution: '15m', from: NOW_S - 2 * DAY - 1, to: NOW_S }],
      [`from=${NOW_S - 7 * DAY}`, { resolution: '15m', from: NOW_S - 7 * DAY, to: NOW_S }],
      [
        `from=${NOW_S - 3 * DAY}&to=${NOW_S - 3 * DAY + 3600}`,
        { resolution: '15m', from: NOW_S - 3 * DAY, to: NOW_S - 3 * DAY + 3600 },
      ],
      [`from=${NOW_S - 31 * DAY}`, { resolution: '15m', from: NOW_S - 31 * DAY, to: NOW_S }],
      [`from=${NOW_S - 32 * DAY}`, { resolution: '1d', from: NOW_S - 32 * DAY, to: NOW_S }],
      [`from=${NOW_S - 365 * DAY}&resolution=auto`, { resolution: '1d', from: NOW_S - 365 * DAY, to: NOW_S }],
      [
        `from=${NOW_S - 400 * DAY}&to=${NOW_S - 399 * DAY}`,
        { resolution: '1d', from: NOW_S - 400 * DAY, to: NOW_S - 399 * DAY },
      ],
      [`to=${NOW_S - 100}`, { resolution: '1m', from: NOW_S - 100 - DAY, to: NOW_S - 100 }],
      [`from=${NOW_S}&to=${NOW_S}&resolution=15m`, { resolution: '15m', from: NOW_S, to: NOW_S }],
    ];
    for (const [query, expected] of cases) {
      const { points: _points, ...range } = await get(query);
      assert.deepEqual(range, expected, query);
    }
  });
});

test('bad parameters: 400 validation_failed naming each field', async () => {
  await withHistory(async (h, recorder) => {
    await recorder.start();
    const cases: Array<[string, string[]]> = [
      ['resolution=5m', ['resolution']],
      ['resolution=', ['resolution']],
      ['resolution=constructor', ['resolution']],
      ['from=yesterday', ['from']],
      ['from=', ['from']],
      ['to=-5', ['to']],
      ['to=1e9', ['to']],
      ['from=2026-02-30T00:00:00Z', ['from']],
      ['from=2026-11-26T24:00:00Z', ['from']],
      ['from=2026-11-26T10:00:00%2B25:00', ['from']],
      ['from=99999999999999', ['from']],
      ['from=abc&to=def&resolution=1h', ['to', 'from', 'resolution']],
      [`from=${NOW_S}&to=${NOW_S - 1}`, ['from']],
      [`from=${NOW_S + 60}`, ['from']],
    ];
    for (const [query, fields] of cases) {
      const reply = await send(h.baseUrl, 'GET', `/api/v1/history?${query}`);
      assert.equal(reply.status, 400, query);
      const body = reply.json();
      assert.equal(body.error, 'validation_failed', query);
      assert.deepEqual(
        body.details.fields.map((f: { field: string }) => f.field),
        fields,
        query,
      );
      await conforms(h, query, reply);
    }
  });
});

test('the history answers only with credentials when protection is on', async () => {
  await withHistory(async (h, recorder) => {
    await recorder.start();
    assert.ok(
      h.ctx.config.apply(
        new Map<string, unknown>([
          ['system.protection', true],
          ['system.password', 'pw'],
        ]),
      ).ok,
    );
    const denied = await send(h.baseUrl, 'GET', '/api/v1/history');
    assert.equal(denied.status, 401);
    const basic = `Basic ${Buffer.from(':pw').toString('base64')}`;
    const allowed = await send(h.baseUrl, 'GET', '/api/v1/history', { headers: { Authorization: basic } });
    assert.equal(allowed.status, 200);
  });
});

test('format=csv: the same points as the JSON answer, as a CSV download', async () => {
  await withHistory(async (h, recorder) => {
    await recorder.start();
    h.ctx.store.ingest(meterReading(NOW - 20_000, { pIn: 1.5, pOut: 0, eIn: 100, eOut: 5 }));
    h.ctx.store.ingest(meterReading(NOW, { pIn: 0.5, eIn: 100.002, eOut: 5 }));
    const query = `from=${NOW_S - 3600}&to=${NOW_S}&resolution=15m`;
    const json = (await send(h.baseUrl, 'GET', `/api/v1/history?${query}`)).json();
    const csv = await send(h.baseUrl, 'GET', `/api/v1/history?${query}&format=csv`);
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.equal(
      csv.headers['content-disposition'],
      'attachment; filename="history-15m-2026-11-26T1100-2026-11-26T1200.csv"',
    );
    assert.equal(csv.headers['cache-control'], 'no-store');
    await conforms(h, 'csv', csv);
    const lines = csv.text.split('\r\n');
    assert.equal(lines.at(-1), '', 'every line ends with CRLF');
    assert.equal(
      lines[0],
      'time,t,readings,p_in_min_kw,p_in_mean_kw,p_in_max_kw,p_out_min_kw,p_out_mean_kw,p_out_max_kw,e_in_kwh,e_out_kwh',
    );
    assert.equal(lines.length, json.points.length + 2);
    assert.equal(lines[1], `2026-11-26T12:00:00+01:00,${NOW_S - 30},2,0.5,1,1.5,0,0,0,0.002,0`);
    const bad = await send(h.baseUrl, 'GET', '/api/v1/history?format=xml');
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.json().details.fields.map((f: { field: string }) => f.field),
      ['format'],
    );
    const doc = (await buildOpenApi(h.router, 'test')) as unknown as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>;
    };
    assert.deepEqual(Object.keys(doc.paths['/api/v1/history']!.get.responses['200']!.content), [
      'application/json',
      'text/csv',
    ]);
  });
});

test('GET /api/v1/history/recent: the power of the readings of the last minutes, bounded', async () => {
  await withHistory(async (h, _recorder, recent) => {
    const empty = await send(h.baseUrl, 'GET', '/api/v1/history/recent');
    assert.deepEqual(empty.json(), { seconds: RECENT_SECONDS, points: [] }, 'not started: nothing kept');
    await recent.start();
    h.ctx.store.ingest(meterReading(NOW - (RECENT_SECONDS + 5) * 1000, { pIn: 9, eIn: 1 }));
    h.ctx.store.ingest(meterReading(NOW - 2_000, { pIn: 1.25, pOut: 0, eIn: 2 }));
    h.ctx.store.ingest(meterReading(NOW - 1_000, { pOut: 0.5, eIn: 2 }));
    const reply = await send(h.baseUrl, 'GET', '/api/v1/history/recent');
    assert.equal(reply.status, 200);
    await conforms(h, 'recent', reply, '/api/v1/history/recent');
    assert.deepEqual(reply.json(), {
      seconds: RECENT_SECONDS,
      points: [
        { t: NOW_S - 2, P_In: 1.25, P_Out: 0 },
        { t: NOW_S - 1, P_Out: 0.5 },
      ],
    });
    for (let i = 0; i < 2000; i += 1) h.ctx.store.ingest(meterReading(NOW - 100_000 + i * 50, { pIn: i }));
    const full = recent.view(NOW);
    assert.ok(full.points.length <= 600, `${full.points.length} points kept`);
    assert.equal(full.points.at(-1)!.P_In, 1999);
  });
});
