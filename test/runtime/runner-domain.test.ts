import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { registerConfigFormats } from '../../src/config-formats.js';
import { valuesOf } from '../../src/reading/reading.js';
import type { ReadingStore } from '../../src/reading/store.js';
import { freePort } from '../helpers/ports.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { postEdited, putJson, startDaemon, type Running } from './runner-rig.js';

// The domain outputs on the runner (docs/architecture.md#output-contract): the meter an output's
// settings name is a meter ref the runner resolves; a meter that is not registered is a state of
// the output (retrying, the error naming it), never a fallback to the primary; a fixed setting
// clears the record; an edited meter (a new handle on a new store) is followed. A failed start and
// a rejected apply of the fleet push are retried, and the write answers 500 naming it.

registerConfigFormats();

async function getJson(base: string, path: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${base}${path}`)).json()) as Record<string, unknown>;
}

/** A reading of a grid meter: import counter and power (kW). */
function ingest(store: ReadingStore, kw: number): void {
  store.ingest({
    receivedAt: Date.now(),
    protocol: 'DSMR',
    identity: {},
    values: valuesOf({ '1.8.0': [1000 + kw, 'kWh'], '1.7.0': [kw, 'kW'], '2.7.0': [0, 'kW'] }),
    mbus: [],
  });
}

/** A further meter whose source never answers: registered, read only by what the test ingests. */
async function furtherMeter(id: string, name: string): Promise<Record<string, unknown>> {
  return { id, name, role: 'grid', source: `tcp://127.0.0.1:${await freePort()}`, timeout: 60 };
}

/**
 * One row per output that names a meter in its settings: how it is pointed at a meter, and what it
 * serves of that meter's readings (the value the test can tell apart: the power it last took up).
 */
interface MeterKind {
  kind: string;
  name: string;
  env: Record<string, string>;
  /** Whether its setting may name a meter that is not configured (the peak guard's is checked). */
  unknownMeter: boolean;
  /** The settings write (PUT) that points it at meter `id`. */
  point(id: string): unknown;
  /** A value the output shows that only a reading it took up sets; null while none. */
  served(run: Running): Promise<number | string | null>;
  /** The served value after a reading of `kw`. */
  expect(kw: number): number | string;
}

const KINDS: MeterKind[] = [
  {
    kind: 'peak guard',
    name: 'peak_guard',
    env: { METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true' },
    unknownMeter: false,
    point: (id) => ({ services: { peak_guard: { meter: id } } }),
    served: async (run) => {
      const view = await getJson(run.base, '/api/v1/peak');
      const quantities = view.quantities as { running_kw?: number | null } | undefined;
      return view.last_reading === null
        ? null
        : `${String(view.last_reading)} ${quantities?.running_kw ?? ''}`;
    },
    // The guard keeps no per-reading power in its view: a new last_reading is what tells.
    expect: () => 'new',
  },
  {
    kind: 'export limiter',
    name: 'export_limiter',
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_ENABLED: 'true' },
    unknownMeter: true,
    point: (id) => ({ services: { export_limiter: { meter: id } } }),
    served: async (run) => {
      const view = await getJson(run.base, '/api/v1/export-limiter');
      return view.grid_w as number | null;
    },
    expect: (kw) => kw * 1000,
  },
];

/**
 * Feeds `store` readings of `kw` until the output shows one (peak guard: any newer reading than
 * `before`; its first readings after a start wait while the history answers).
 */
async function waitServed(
  row: MeterKind,
  run: Running,
  store: ReadingStore,
  kw: number,
  before: number | string | null,
) {
  const expected = row.expect(kw);
  await waitFor(
    `${row.name} to take up a reading of ${kw} kW`,
    async () => {
      ingest(store, kw);
      return row.served(run);
    },
    (value) => (expected === 'new' ? value !== null && value !== before : value === expected),
  );
}

for (const row of KINDS) {
  const title = row.unknownMeter
    ? 'a meter not registered is a state naming it (no fallback to the primary); fixed, the record clears; '
    : '';
  test(`${row.kind}: ${title}an edited meter is followed on its new store, the old one let go`, async () => {
    const grid2 = await furtherMeter('grid2', 'Grid 2');
    const run = await startDaemon({
      ...row.env,
      METER_GATEWAY_METERS: JSON.stringify([grid2]),
      [`METER_GATEWAY_SERVICES_${row.name.toUpperCase()}_METER`]: row.unknownMeter ? 'grid3' : 'grid2',
    });
    // The store the edit lets go; the test ingests into it after the daemon let it go, which arms
    // its staleness timer (the meter's 60 s timeout) again: closed at the end, or that timer alone
    // would keep the test's process alive for a minute.
    let first: ReadingStore | undefined;
    try {
      if (row.unknownMeter) await missingThenFixed(row, run);
      const line = run.services()[row.name];
      assert.equal(line?.state, 'running', JSON.stringify(line));
      assert.equal(line?.error, undefined);
      // The primary (the simulator, every 0.2 s) reads on; the output takes none of it.
      assert.equal(await row.served(run), null, 'nothing served from the primary meter');

      first = run.daemon.context.meters.get('grid2')!.store;
      await waitServed(row, run, first, 1.5, null);

      // The entry is edited through POST /api/v1/settings: a new handle on a new store.
      const edited = await postEdited(run.base, (settings) => {
        settings.meters = [{ ...grid2, name: 'Grid 2 edited' }];
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const second = await waitFor(
        'the edited meter to be registered on a new store',
        () => run.daemon.context.meters.get('grid2')?.store,
        (store) => store !== undefined && store !== first,
      );
      const before = await row.served(run);
      // The old store is let go: its readings are not taken up.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      ingest(first, 7);
      await quietPeriod(300);
      assert.equal(await row.served(run), before, 'the old store is not followed');
      await waitServed(row, run, second!, 2.5, before);
      assert.equal(run.services()[row.name]?.state, 'running');
    } finally {
      await run.close();
      first?.close();
    }
  });
}

/** Pointed at a meter that is not registered, then at grid2 by a write. */
async function missingThenFixed(row: MeterKind, run: Running): Promise<void> {
  const missing = await waitFor(
    `${row.name} to show its missing meter`,
    () => run.services()[row.name],
    (line) => line?.state === 'retrying',
  );
  assert.match(String(missing?.error), /grid3/);
  await quietPeriod(600);
  assert.equal(await row.served(run), null, 'nothing served from the primary meter');
  const fixed = await putJson(run.base, '/api/v1/settings', row.point('grid2'));
  assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
  const line = run.services()[row.name];
  assert.equal(line?.state, 'running', JSON.stringify(line));
  assert.equal(line?.error, undefined, 'the record is gone with its cause');
}

const target = (port: number) => ({
  id: 'fleet',
  kind: 'vm_import',
  url: `http://127.0.0.1:${port}/api/v1/import`,
});

test('fleet push: a start whose cursor folder cannot be made recovers once it can; a write it cannot take up answers 500 naming push; the record goes after the fix', async () => {
  const port = await freePort();
  // A file where the push keeps its cursors: the target cannot load.
  const run = await startDaemon(
    { METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([target(port)]) },
    (stateDir) => writeFileSync(join(stateDir, 'push'), 'in the way'),
  );
  try {
    const failed = run.services().push;
    assert.equal(failed?.state, 'retrying', JSON.stringify(failed));
    assert.match(String(failed?.error), /EEXIST|ENOTDIR/);
    rmSync(join(run.stateDir, 'push'));
    const recovered = await waitFor(
      'push to run once its folder can be made',
      () => run.services().push,
      (line) => line?.state === 'running',
    );
    assert.equal(recovered?.targets, 1);
    assert.equal(recovered?.error, undefined);

    // A second target, whose cursor file cannot be written: its folder is in the way again.
    rmSync(join(run.stateDir, 'push'), { recursive: true, force: true });
    writeFileSync(join(run.stateDir, 'push'), 'in the way');
    const answer = await putJson(run.base, '/api/v1/settings', {
      services: { push: { targets: [target(port), { ...target(port), id: 'second' }] } },
    });
    assert.equal(answer.status, 500, JSON.stringify(answer.body));
    assert.equal(answer.body.details?.saved, true);
    assert.deepEqual(
      (answer.body.details?.failed ?? []).map((failure) => failure.output),
      ['push'],
    );
    assert.equal(run.services().push?.state, 'retrying');

    rmSync(join(run.stateDir, 'push'));
    const fixed = await waitFor(
      'push to run both targets after the fix',
      () => run.services().push,
      (line) => line?.state === 'running' && line.targets === 2,
    );
    assert.equal(fixed?.error, undefined);
  } finally {
    await run.close();
  }
});

test('fleet push: a write that outlasts http.apply_timeout_ms (a batch in flight to a receiver that holds it) answers 202 applying naming push; the status then shows it running on the new settings', async () => {
  // A receiver that takes power_1s batches and answers only when the test lets it.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const waiting: ServerResponse[] = [];
  const receiver = createServer((request, response) => {
    request.resume();
    waiting.push(response);
    void held.then(() => response.writeHead(204).end());
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const port = (receiver.address() as { port: number }).port;
  const live = { ...target(port), what: ['power_1s'] };
  const run = await startDaemon({
    METER_GATEWAY_HTTP_APPLY_TIMEOUT_MS: '300',
    METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([live]),
  });
  try {
    await waitFor(
      'a batch in flight',
      () => waiting.length,
      (count) => count > 0,
    );
    const answer = await putJson(run.base, '/api/v1/settings', {
      services: { push: { targets: [{ ...live, id: 'moved' }] } },
    });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { state: 'applying', outputs: ['push'] });
    release();
    const line = await waitFor(
      'push to run on the new target',
      async () => ({ line: run.services().push, ids: await pushIds(run) }),
      (seen) => seen.line?.state === 'running' && seen.ids.join() === 'moved',
    );
    assert.equal(line.line?.error, undefined);
  } finally {
    release();
    await run.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

/** The targets GET /api/v1/push shows running. */
async function pushIds(run: Running): Promise<string[]> {
  const view = await getJson(run.base, '/api/v1/push');
  const targets = (view.targets ?? []) as { id: string }[];
  return targets.map((entry) => entry.id);
}
