import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { runVariables, substitute, unknownVariables } from '../../src/actions/variables.js';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { valuesOf } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';

registerConfigFormats();

/** Actions address any meter: `${meters.<id>.<variable>}`; the primary keeps the device's names. */

test('${meters.pv.power_out}, ${meters.pv.2_8_0} and ${meters.main.1_7_0} render; unknown names are reported', (t) => {
  const dir = tempDir('mg-actions-meters-');
  const ctx = createAppContext({ env: {}, stateDir: dir, logger: linesLogger([], 'error') });
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485' });
  t.after(() => {
    pv.close();
    ctx.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store: pv, source: () => 'x' });
  const values = (power: number, exported: number) =>
    valuesOf({
      '1.7.0': [power, 'kW'],
      '2.7.0': [exported, 'kW'],
      '1.8.0': [10, 'kWh'],
      '2.8.0': [2500.5, 'kWh'],
    });
  ctx.store.ingest({
    receivedAt: Date.now(),
    protocol: 'DSMR',
    identity: {},
    values: values(1.25, 0),
    mbus: [],
  });
  pv.ingest({ receivedAt: Date.now(), protocol: 'MODBUS', identity: {}, values: values(0, 3.5), mbus: [] });
  const text =
    '{"grid":${1_7_0},"main":${meters.main.1_7_0},"pv":${meters.pv.power_out},"pv_total":${meters.pv.2_8_0},"status":"${meters.pv.meter.status}"}';
  assert.deepEqual(unknownVariables(text, {}), []);
  assert.deepEqual(JSON.parse(substitute(text, runVariables(ctx, {}))), {
    grid: 1.25,
    main: 1.25,
    pv: 3.5,
    pv_total: 2500.5,
    status: 'OK',
  });
  assert.deepEqual(unknownVariables('${meters.pv.nope} ${meters.PV.1_7_0}', {}), [
    'meters.pv.nope',
    'meters.PV.1_7_0',
  ]);
  // A stale meter's numbers are null, never an old value.
  pv.expire();
  assert.equal(substitute('${meters.pv.power_out}', runVariables(ctx, {})), 'null');
});
