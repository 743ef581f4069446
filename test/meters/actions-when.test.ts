import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { recordingServer, startActionsRig } from '../actions/rig.js';

/** A `when` condition on a further meter watches that meter only, and never on its stale data. */

function exporting(kw: number, at: number): Reading {
  return {
    receivedAt: at,
    protocol: 'MODBUS',
    identity: {},
    values: valuesOf({ '1.7.0': [0, 'kW'], '2.7.0': [kw, 'kW'] }),
    mbus: [],
  };
}

test('when {value: P_Out, above, meter: pv} fires on the PV meter, not on the primary', async (t) => {
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: rig.clock.now });
  t.after(async () => {
    pv.close();
    await rig.close();
    await target.close();
  });
  rig.ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store: pv, source: () => 'x' });
  const answer = await rig.post({
    actions: [
      {
        id: 'pv_surplus',
        when: { value: 'P_Out', above: 2, for: 0, meter: 'pv' },
        requests: [{ http: { url: `${target.url}/pv?p=\${meters.pv.power_out}` } }],
      },
    ],
  });
  assert.equal(answer.status, 200);
  // The primary exports a lot: not the meter the condition watches.
  rig.ctx.store.ingest(exporting(5, rig.clock.now()));
  pv.ingest(exporting(1, rig.clock.now()));
  await quietPeriod(300);
  assert.equal(target.requests.length, 0);
  pv.ingest(exporting(3.5, rig.clock.now()));
  await waitFor(
    'the PV condition to fire',
    () => target.requests.length,
    (n) => n === 1,
  );
  assert.match(target.requests[0]!.url, /\/pv\?p=3\.5$/);
  const refused = await rig.post({
    actions: [{ id: 'x', when: { value: 'P_Out', above: 1, meter: 'PV!' }, requests: [] }],
  });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /when\.meter/);
});
