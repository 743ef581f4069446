// The peak guard as an output on a real context and a frozen clock: its shed and restore calls go
// through the actions engine to a real loopback HTTP server that records them; the `when`
// trigger of a locked action is suppressed while its stage is shed; the state file holds the
// shed stage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { recordingServer } from '../actions/rig.js';
import { importFeeder } from './import-feed.js';
import { EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const request = (url: string) => [{ http: { url, method: 'POST' } }];

test('shed and restore calls reach a loopback server; a locked when trigger is suppressed while shed', async () => {
  const target = await recordingServer(200);
  const definition = {
    actions: [
      { id: 'ev_off', requests: request(`${target.url}/ev/off`) },
      { id: 'ev_on', requests: request(`${target.url}/ev/on`) },
      // Starts the charger when the import is low: locked while ev is shed.
      {
        id: 'ev_boost',
        when: { value: 'P_In', below: 0.5, for: 0 },
        requests: request(`${target.url}/ev/boost`),
      },
    ],
  };
  const stage = { ...EV, locks: ['ev_boost'] };
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(definition),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_HOLD_S: '10',
      METER_GATEWAY_SERVICES_PEAK_GUARD_HYSTERESIS_KW: '0',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([stage]),
    },
    routes: (_router, ctx) => {
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
    },
  });
  const actionsOutput = runOutput(h.ctx, actions!);
  const guardOutput = runOutput(h.ctx, guard!);
  await actionsOutput.start();
  await guardOutput.start();
  const feed = importFeeder(h, 500);
  const paths = () => target.requests.map((request) => request.url);
  try {
    // Move the frozen clock to 10 s before a quarter hour, then 8 kW for two minutes.
    const now = h.clock.now();
    h.clock.advance(900_000 - (now % 900_000) - 10_000);
    feed(0.6, 5);
    feed(8, 70);
    await waitFor('the shed call', paths, (list) => list.includes('/ev/off'));
    // The import falls to 0.1 kW: ev_boost's condition holds, but its trigger is locked.
    feed(0.1, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(paths(), ['/ev/off']);
    assert.ok(h.logLines.some((line) => line.includes('action ev_boost') && line.includes('suppressed')));
    const stored = JSON.parse(readFileSync(join(h.stateDir, 'peak-guard.json'), 'utf8'));
    assert.deepEqual(
      stored.shed.map((shed: { id: string }) => shed.id),
      ['ev'],
    );
    assert.equal((guard!.snapshot() as { state: string }).state, 'shedding');
    // With 0.2 kW the window has room for ev again (0.1 + 3.7 ≤ 4, once the 30 s mean settled): restored after hold_s (10 s),
    // and the lock is released: the next crossing below 0.5 kW starts the boost.
    feed(0.1, 50);
    await waitFor('the restore call', paths, (list) => list.includes('/ev/on'));
    feed(0.6, 2);
    feed(0.1, 1);
    await waitFor('the boost after the lock', paths, (list) => list.includes('/ev/boost'));
    assert.deepEqual(paths(), ['/ev/off', '/ev/on', '/ev/boost']);
  } finally {
    await guardOutput.stop();
    await actionsOutput.stop();
    await h.close();
    await target.close();
  }
});
