// Two hours of the peak guard in a closed loop on the test clock: a steady house load that fits
// the limit only without the EV, the EV drawing its 3.7 kW whenever the charger last got an `on`
// request. Shed and restore calls go through the actions engine to a recording loopback server,
// whose requests switch the EV. At most one shed/restore cycle per stage in any 30 minutes: a
// stage restored while the load it brings back does not fit the next window is shed again
// arm_after_s into it (docs/architecture.md#peak-guard).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { recordingServer } from '../actions/rig.js';
import { EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const request = (url: string) => [{ http: { url, method: 'POST' } }];
const HALF_HOUR = 1_800_000;

/** The most calls of `kind` in any 30 minutes. */
function mostIn30Minutes(times: readonly number[]): number {
  let most = 0;
  for (const from of times)
    most = Math.max(most, times.filter((at) => at >= from && at < from + HALF_HOUR).length);
  return most;
}

for (const houseKw of [2.5, 3.0]) {
  test(`a steady ${houseKw} kW house load with L = 4 kW: at most one shed/restore cycle of the EV per 30 minutes over 2 hours`, async () => {
    const target = await recordingServer(200);
    const definition = {
      actions: [
        { id: 'ev_off', requests: request(`${target.url}/ev/off`) },
        { id: 'ev_on', requests: request(`${target.url}/ev/on`) },
      ],
    };
    let guard: PeakGuard | undefined;
    let actions: ActionsOutput | undefined;
    const h = await startHttpContext({
      clockFrozen: true,
      env: {
        METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(definition),
        METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
        METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([EV]),
      },
      routes: (_router, ctx) => {
        actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
        guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      },
    });
    const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
    for (const output of outputs) await output.start();
    const calls: { kind: string; at: number }[] = [];
    guard!.on('event', (event) => {
      if (event.type === 'shed' || event.type === 'restore') calls.push({ kind: event.type, at: event.at });
    });
    try {
      const now = h.clock.now();
      h.clock.advance(900_000 - (now % 900_000) - 30_000);
      let kwh = 1000;
      for (let second = 0; second < 7200; second++) {
        h.clock.advance(1000);
        // The charger follows the last request it got: on until an `off`, off until an `on`.
        const last = target.requests.at(-1)?.url;
        const kw = houseKw + (last === '/ev/off' ? 0 : EV.relief_kw);
        kwh += kw / 3600;
        h.ctx.store.ingest({
          receivedAt: h.clock.now(),
          protocol: 'DSMR',
          identity: {},
          values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'] }),
          mbus: [],
        });
        guard!.tick();
        // A call went out: the charger switches once the loopback server has the request.
        if (calls.length > target.requests.length)
          await waitFor(
            'the call at the server',
            () => target.requests.length,
            (count) => count === calls.length,
          );
      }
      const sheds = calls.filter((call) => call.kind === 'shed').map((call) => call.at);
      const restores = calls.filter((call) => call.kind === 'restore').map((call) => call.at);
      assert.ok(sheds.length >= 1, 'the EV is shed');
      assert.ok(
        mostIn30Minutes(sheds) <= 1,
        `sheds at ${sheds.map((at) => new Date(at).toISOString()).join(', ')}`,
      );
      assert.ok(
        mostIn30Minutes(restores) <= 1,
        `restores at ${restores.map((at) => new Date(at).toISOString()).join(', ')}`,
      );
      assert.deepEqual(
        target.requests.map((entry) => entry.url),
        calls.map((call) => (call.kind === 'shed' ? '/ev/off' : '/ev/on')),
      );
    } finally {
      for (const output of outputs.reverse()) await output.stop();
      await h.close();
      await target.close();
    }
  });
}
