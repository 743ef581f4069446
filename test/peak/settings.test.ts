// services.peak_guard through PUT /api/v1/settings: off by default, and bad input (absurd limits,
// a stage naming an unknown action, a cycle of locks, a stage listed twice) is a 400 naming the
// field with nothing stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from '../http/http-client.js';

const ACTIONS = {
  actions: ['ev_off', 'ev_on', 'boiler_off', 'boiler_on', 'ev_night'].map((id) => ({
    id,
    requests: [{ http: { url: 'http://127.0.0.1:9/x', method: 'POST' } }],
  })),
};
const EV = {
  id: 'ev',
  shed: 'ev_off',
  restore: 'ev_on',
  relief_kw: 3.7,
  min_on_s: 0,
  min_off_s: 60,
  locks: ['ev_night'],
};
const BOILER = {
  id: 'boiler',
  shed: 'boiler_off',
  restore: 'boiler_on',
  relief_kw: 2,
  min_on_s: 0,
  min_off_s: 0,
  locks: [],
};

async function withServer(fn: (baseUrl: string, stored: () => unknown) => Promise<void>): Promise<void> {
  const h = await startHttpContext({
    env: { METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(ACTIONS) },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerBackupRoutes(router, ctx);
    },
  });
  try {
    await fn(h.baseUrl, () => h.ctx.config.config.services.peak_guard);
  } finally {
    await h.close();
  }
}

const put = (baseUrl: string, peak: Record<string, unknown>) =>
  sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { services: { peak_guard: peak } });

test('the peak guard is off by default and a valid guard with two stages is stored', () =>
  withServer(async (baseUrl, stored) => {
    const before = (await send(baseUrl, 'GET', '/api/v1/settings')).json();
    assert.equal(before.services.peak_guard.enabled, false);
    assert.equal(before.services.peak_guard.model, 'be_quarter');
    const reply = await put(baseUrl, { enabled: true, limit_kw: 4, stages: [EV, BOILER] });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual((stored() as { stages: unknown }).stages, [EV, BOILER]);
  }));

const BAD: [string, Record<string, unknown>, string][] = [
  ['a negative limit', { limit_kw: -1 }, 'services.peak_guard.limit_kw'],
  ['an absurd limit', { limit_kw: 5000 }, 'services.peak_guard.limit_kw'],
  ['a limit below the margins', { limit_kw: 0.2, warn_margin_kw: 0.3 }, 'services.peak_guard.limit_kw'],
  [
    'a stage naming an unknown action',
    { stages: [{ ...EV, shed: 'nope' }] },
    'services.peak_guard.stages[0].shed',
  ],
  [
    'a lock naming an unknown action',
    { stages: [EV, { ...BOILER, locks: ['ghost'] }] },
    'services.peak_guard.stages[1].locks[0]',
  ],
  [
    'a cycle of locks',
    {
      stages: [
        { ...EV, locks: ['boiler_on'] },
        { ...BOILER, locks: ['ev_on'] },
      ],
    },
    'services.peak_guard.stages[0].locks',
  ],
  [
    'a stage locking its own restore',
    { stages: [{ ...EV, locks: ['ev_on'] }] },
    'services.peak_guard.stages[0].locks',
  ],
  ['a stage listed twice', { stages: [EV, BOILER, EV] }, 'services.peak_guard.stages[2].id'],
  [
    'a stage without relief',
    { stages: [{ ...EV, relief_kw: 0 }] },
    'services.peak_guard.stages[0].relief_kw',
  ],
  ['stages that are no list', { stages: 'ev' }, 'services.peak_guard.stages'],
  [
    'Norway steps that do not increase',
    {
      model: 'no_top3_days',
      steps: [
        { to_kw: 2, price: 300 },
        { to_kw: 5, price: 375 },
        { to_kw: 5, price: 400 },
      ],
    },
    'services.peak_guard.steps[2].to_kw',
  ],
  [
    'a Norway step with a negative price',
    { steps: [{ to_kw: 2, price: -1 }] },
    'services.peak_guard.steps[0].price',
  ],
  ['no Norway steps at all', { steps: [] }, 'services.peak_guard.steps'],
  ['a filter month 13', { filter: { months: [11, 13] } }, 'services.peak_guard.filter.months[1]'],
  ['a filter month listed twice', { filter: { months: [1, 1] } }, 'services.peak_guard.filter.months[1]'],
  [
    'filter hours that end before they start',
    { model: 'se_max_hour', filter: { hours_from: 19, hours_to: 7 } },
    'services.peak_guard.filter.hours_to',
  ],
  ['a filter hour 25', { filter: { hours_to: 25 } }, 'services.peak_guard.filter.hours_to'],
  ['an absurd top_n', { top_n: 99 }, 'services.peak_guard.top_n'],
  // Not a fallback to the primary: a meter that is not configured is refused.
  ['a meter that does not exist', { meter: 'nope' }, 'services.peak_guard.meter'],
  // Windows tile the local hour.
  ['a window of 301 s', { model: 'custom', window_s: 301 }, 'services.peak_guard.window_s'],
  ['a window of 1000 s', { model: 'custom', window_s: 1000 }, 'services.peak_guard.window_s'],
  ['a window of 3599 s', { model: 'custom', window_s: 3599 }, 'services.peak_guard.window_s'],
  // A shed's relief is judged over step_delay_s: it must end inside the window.
  [
    'a relief time longer than a 5-minute window',
    { model: 'custom', window_s: 300, arm_after_s: 60, step_delay_s: 240 },
    'services.peak_guard.step_delay_s',
  ],
  [
    'a relief time past the quarter',
    { arm_after_s: 600, step_delay_s: 300 },
    'services.peak_guard.step_delay_s',
  ],
  // A stage id keys the stage's times: a prototype name would lose them.
  ['a stage id __proto__', { stages: [{ ...EV, id: '__proto__' }] }, 'services.peak_guard.stages[0].id'],
  ['a stage on 2 phases', { stages: [{ ...EV, phases: 2 }] }, 'services.peak_guard.stages[0].phases'],
];

for (const [what, peak, field] of BAD) {
  test(`${what}: 400 naming ${field}, nothing stored`, () =>
    withServer(async (baseUrl, stored) => {
      const before = JSON.stringify(stored());
      const reply = await put(baseUrl, { enabled: true, ...peak });
      assert.equal(reply.status, 400, reply.text);
      const body = reply.json();
      const fields = body.details.fields.map((issue: { field: string }) => issue.field);
      assert.ok(fields.includes(field), `${JSON.stringify(fields)} names ${field}`);
      assert.equal(JSON.stringify(stored()), before);
      const after = (await send(baseUrl, 'GET', '/api/v1/settings')).json();
      assert.equal(after.services.peak_guard.enabled, false);
    }));
}

test('Norway and Sweden settings are stored: steps, mode keep_step, filter hours, weekdays and months', () =>
  withServer(async (baseUrl, stored) => {
    const steps = [
      { to_kw: 2, price: 312.5 },
      { to_kw: 5, price: 375 },
    ];
    const reply = await put(baseUrl, {
      model: 'se_max_hour',
      mode: 'keep_step',
      steps,
      top_n: 3,
      filter: { hours_from: 7, hours_to: 19, weekdays_only: true, months: [11, 12, 1, 2, 3] },
    });
    assert.equal(reply.status, 200, reply.text);
    const peak = stored() as Record<string, unknown>;
    assert.deepEqual(peak.steps, steps);
    assert.deepEqual(peak.filter, {
      hours_from: 7,
      hours_to: 19,
      weekdays_only: true,
      months: [11, 12, 1, 2, 3],
    });
    assert.equal(peak.top_n, 3);
  }));

for (const [what, peak, field] of BAD) {
  test(`a backup restoring ${what}: 400 naming ${field}, nothing stored`, () =>
    withServer(async (baseUrl, stored) => {
      const before = JSON.stringify(stored());
      const reply = await sendJsonBody(baseUrl, 'POST', '/api/v1/backup', {
        format: 'meter-gateway-settings',
        version: 1,
        settings: { services: { peak_guard: { enabled: true, ...peak } } },
      });
      assert.equal(reply.status, 400, reply.text);
      const details = reply.json().details;
      const fields = (details.fields ?? details.issues ?? []).map((issue: { field: string }) => issue.field);
      assert.ok(fields.includes(field), `${JSON.stringify(fields)} names ${field}`);
      assert.equal(JSON.stringify(stored()), before);
    }));
}
