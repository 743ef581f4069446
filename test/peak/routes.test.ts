// GET /api/v1/peak, /api/v1/peak/history and /api/v1/peak/stream on a real server and a frozen
// clock at the Belgian case (3.0 kW 18:00–18:05, then 7.0 kW), checked against the
// OpenAPI document the server serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';
import { openStream } from '../http/sse-client.js';
import { EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

test('the peak endpoints show the Belgian case at 18:05 and 18:08, the month peak after 18:15, and stream updates', async () => {
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  const stage = EV;
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          { id: 'ev_off', requests: [{ http: { url: 'http://127.0.0.1:9/off' } }] },
          { id: 'ev_on', requests: [{ http: { url: 'http://127.0.0.1:9/on' } }] },
        ],
      }),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([stage]),
      METER_GATEWAY_METER_TIMEOUT: '3600',
    },
    staleAfterMs: 3_600_000,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard);
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
  for (const output of outputs) await output.start();
  const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).json();
  const get = async (path: string) => {
    const reply = await send(h.baseUrl, 'GET', path);
    const route = path.split('?')[0]!;
    assert.deepEqual(
      responseProblems(doc, 'GET', route, reply.status, String(reply.headers['content-type']), reply.text),
      [],
    );
    return reply;
  };
  let kwh = 100;
  // Yields now and then so the stream client reads: the server drops a client that falls behind
  // (docs/architecture.md#hostile-input).
  const feedUntil = async (until: string, kw: number) => {
    const end = Date.parse(until);
    for (let n = 1; h.clock.now() < end; n++) {
      if (n % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      h.clock.advance(1000);
      kwh += kw / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'] }),
        mbus: [],
      });
    }
  };
  const stream = await openStream(h.baseUrl, '/api/v1/peak/stream');
  try {
    assert.match(
      await stream.block(0),
      /^event: peak\ndata: \{"state":"idle"|^event: peak\ndata: \{"state":"off"/,
    );
    h.clock.advance(Date.parse('2026-11-25T17:59:00') - h.clock.now());
    await feedUntil('2026-11-25T18:05:00', 3);
    let peak = (await get('/api/v1/peak')).json();
    assert.equal(peak.window.start, '2026-11-25T18:00:00+01:00');
    assert.equal(peak.window.remaining_s, 600);
    assert.equal(peak.running_kw, 1);
    assert.equal(peak.average_kw, 3);
    assert.equal(peak.predicted_kw, 3);
    assert.equal(peak.allowed_kw, 4.5);
    await feedUntil('2026-11-25T18:08:00', 7);
    peak = (await get('/api/v1/peak')).json();
    assert.equal(peak.running_kw, 2.4);
    assert.equal(peak.predicted_kw, 5.667);
    assert.equal(peak.allowed_kw, 3.429);
    assert.equal(peak.headroom_kw, -3.571);
    assert.deepEqual(
      peak.shed.map((shed: { id: string }) => shed.id),
      ['ev'],
    );
    await feedUntil('2026-11-25T18:15:00', 3.3);
    peak = (await get('/api/v1/peak')).json();
    // The peak's time is its window's end, as the meter stamps 1-0:1.6.0.
    assert.deepEqual(peak.month_peak, { kw: 3.94, at: '2026-11-25T18:15:00+01:00', source: 'computed' });
    // 18:15:00 opens a window predicted at 3.3 kW, below the month peak: nothing to add.
    assert.equal(peak.marginal_eur, 0);
    const history = (await get('/api/v1/peak/history?months=13')).json();
    assert.deepEqual(history.months, [
      {
        month: '2026-11',
        meter_kw: null,
        meter_at: null,
        peak_kw: 3.94,
        peak_at: '2026-11-25T18:15:00+01:00',
        source: 'computed',
        computed_kw: 3.94,
        computed_at: '2026-11-25T18:15:00+01:00',
        // The guard saw only 17:59:01–18:00 of the 17:45 window: not recorded.
        top: [{ start: '2026-11-25T18:00:00+01:00', kw: 3.94 }],
      },
    ]);
    const bad = await get('/api/v1/peak/history?months=14');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().details.fields[0].field, 'months');
    // The stream carried the updates and the events (warning, shed, new_month_peak).
    const events = stream.blocks.filter((block) => block.startsWith('event: peak_event'));
    const types = events.map((block) => JSON.parse(block.split('\ndata: ')[1]!).type);
    assert.deepEqual(
      types.filter((type) => type !== 'ineffective' && type !== 'unavoidable'),
      ['warning', 'shed', 'new_month_peak'],
    );
    assert.ok(stream.blocks.filter((block) => block.startsWith('event: peak\n')).length > 900);
  } finally {
    stream.close();
    for (const output of outputs.reverse()) await output.stop();
    await h.close();
  }
});
