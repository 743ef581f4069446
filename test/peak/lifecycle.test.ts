// The peak guard's life cycle on a real context and a frozen clock: an invalid state file is set
// aside (`.corrupt-<time>`), logged and counted, and the guard runs on from empty; a stage removed
// while shed and a guard switched off while shedding restore newest first, exactly once; the guard
// follows its meter through the registry (an edited meter comes back on a new store) and a meter
// that is not registered is a state, never a fallback to the primary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import type { MeterHandle } from '../../src/reading/meter-registry.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { recordingServer } from '../actions/rig.js';
import { importFeeder } from './import-feed.js';
import { EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const BOILER = { ...EV, id: 'boiler', shed: 'boiler_off', restore: 'boiler_on', relief_kw: 2 };
const request = (url: string) => [{ http: { url, method: 'POST' } }];

interface Rig {
  h: HttpTestContext;
  guard: PeakGuard;
  paths: () => (string | undefined)[];
  close: () => Promise<void>;
}

async function rig(env: Record<string, string>, before?: (stateDir: string) => void): Promise<Rig> {
  const target = await recordingServer(200);
  const definition = {
    actions: ['ev_off', 'ev_on', 'boiler_off', 'boiler_on'].map((id) => ({
      id,
      requests: request(`${target.url}/${id}`),
    })),
  };
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(definition),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STEP_DELAY_S: '5',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([EV, BOILER]),
      ...env,
    },
    routes: (_router, ctx) => {
      before?.(ctx.config.stateDirectory.dir);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
  for (const output of outputs) await output.start();
  return {
    h,
    guard: guard!,
    paths: () => target.requests.map((entry) => entry.url),
    close: async () => {
      for (const output of outputs.reverse()) await output.stop();
      await h.close();
      await target.close();
    },
  };
}

/** Moves the frozen clock to 10 s before a quarter hour, then 9 kW until both stages are shed. */
async function shedBoth(r: Rig): Promise<void> {
  const now = r.h.clock.now();
  r.h.clock.advance(900_000 - (now % 900_000) - 10_000);
  const feed = importFeeder(r.h, 500);
  feed(0.6, 5);
  feed(9, 80);
  await waitFor('both sheds', r.paths, (list) => list.includes('/boiler_off'));
  assert.deepEqual(r.paths(), ['/ev_off', '/boiler_off']);
}

const GOOD_TRACKER = { windowStart: 0, startKwh: 1, lastAt: 0, lastKwh: 1 };
const STATE_FILES: [string, string][] = [
  ['a truncated file', '{"version":1,"shed":[{"id":"ev","since":1'],
  [
    'a file of another version',
    JSON.stringify({ version: 2, shed: [], restoredAt: {}, ineffective: [], months: [] }),
  ],
  [
    'shed entries without a field',
    JSON.stringify({
      version: 1,
      tracker: GOOD_TRACKER,
      shed: [{ id: 'ev' }],
      restoredAt: {},
      ineffective: [],
      months: [],
    }),
  ],
  [
    'a month without its list',
    JSON.stringify({ version: 1, shed: [], restoredAt: {}, ineffective: [], months: [{ month: '2026-11' }] }),
  ],
];

for (const [what, text] of STATE_FILES) {
  test(`${what}: moved aside as .corrupt-<time>, logged and counted; the guard runs from empty and sheds`, async () => {
    const r = await rig({}, (dir) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'peak-guard.json'), text);
    });
    try {
      const dir = r.h.ctx.config.stateDirectory.dir;
      const aside = readdirSync(dir).filter((name) => name.startsWith('peak-guard.json.corrupt-'));
      assert.equal(aside.length, 1, readdirSync(dir).join(', '));
      assert.equal(r.guard.stateRejections, 1);
      assert.ok(r.h.logLines.some((line) => line.includes('peak-guard.json') && line.includes('invalid')));
      // Ticks and readings go on (a bad shed entry once made the tick timer throw).
      r.guard.tick();
      await shedBoth(r);
      assert.ok(existsSync(join(dir, 'peak-guard.json')));
    } finally {
      await r.close();
    }
  });
}

test('a stage removed from the settings while shed is restored once, the other stays shed', async () => {
  const r = await rig({});
  try {
    await shedBoth(r);
    assert.ok(r.h.ctx.config.apply(new Map([['services.peak_guard.stages', [EV]]])).ok);
    await waitFor('the boiler restore', r.paths, (list) => list.includes('/boiler_on'));
    assert.ok(r.h.ctx.config.apply(new Map([['services.peak_guard.hold_s', 61]])).ok);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(r.paths(), ['/ev_off', '/boiler_off', '/boiler_on']);
    assert.deepEqual(
      (r.guard.snapshot() as { shed: { id: string }[] }).shed.map((stage) => stage.id),
      ['ev'],
    );
  } finally {
    await r.close();
  }
});

test('switching the guard off while shedding restores newest first, exactly once', async () => {
  const r = await rig({});
  try {
    await shedBoth(r);
    assert.ok(r.h.ctx.config.apply(new Map([['services.peak_guard.enabled', false]])).ok);
    await waitFor('both restores', r.paths, (list) => list.includes('/ev_on'));
    assert.ok(r.h.ctx.config.apply(new Map([['services.peak_guard.hold_s', 61]])).ok);
    assert.ok(r.h.ctx.config.apply(new Map([['services.peak_guard.enabled', true]])).ok);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(r.paths(), ['/ev_off', '/boiler_off', '/boiler_on', '/ev_on']);
  } finally {
    await r.close();
  }
});

function handle(h: HttpTestContext, store: ReadingStore): MeterHandle {
  return { id: 'grid2', name: 'Grid 2', role: 'grid', kind: 'polled', store, source: () => 'x' };
}

test('the guard follows its meter through the registry; a meter not registered is stale, not the primary', async () => {
  const r = await rig({
    METER_GATEWAY_METERS: JSON.stringify([
      { id: 'grid2', name: 'Grid 2', role: 'grid', source: 'tcp://127.0.0.1:9', timeout: 10 },
    ]),
    METER_GATEWAY_SERVICES_PEAK_GUARD_METER: 'grid2',
  });
  const stores: ReadingStore[] = [];
  const storeOf = () => {
    const store = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: r.h.clock.now });
    stores.push(store);
    return store;
  };
  let kwh = 100;
  const feed = (store: ReadingStore, kw: number, seconds: number) => {
    for (let i = 0; i < seconds; i++) {
      r.h.clock.advance(1000);
      kwh += kw / 3600;
      store.ingest({
        receivedAt: r.h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'] }),
        mbus: [],
      });
    }
  };
  try {
    // Not registered yet: stale and an error naming the meter; the primary's readings are not taken.
    importFeeder(r.h, 10)(2, 5);
    assert.equal((r.guard.snapshot() as { state: string }).state, 'stale');
    assert.match(String(r.h.ctx.services.get('peak_guard')?.error), /grid2/);
    assert.equal((r.guard.snapshot() as { last_reading_at: number | null }).last_reading_at, null);
    const first = storeOf();
    r.h.ctx.meters.add(handle(r.h, first));
    feed(first, 1, 5);
    let snapshot = r.guard.snapshot() as { state: string; last_reading_at: number | null };
    assert.equal(snapshot.state, 'idle');
    assert.equal(snapshot.last_reading_at, r.h.clock.now());
    // The entry is edited: the registry removes the handle and adds one on a new store.
    r.h.ctx.meters.remove('grid2');
    const second = storeOf();
    r.h.ctx.meters.add(handle(r.h, second));
    feed(second, 1, 5);
    snapshot = r.guard.snapshot() as { state: string; last_reading_at: number | null };
    assert.equal(snapshot.last_reading_at, r.h.clock.now(), 'readings of the new store');
    assert.equal(snapshot.state, 'idle');
    assert.equal(r.h.ctx.services.get('peak_guard')?.state, 'running');
  } finally {
    await r.close();
    for (const store of stores) store.close();
  }
});
