import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createModbusRtuService, type ModbusRtuStatus } from '../../src/modbus/rtu-service.js';
import { runOutput } from '../../src/output-runner.js';
import { ReadingStore } from '../../src/reading/store.js';
import { waitFor } from '../helpers/wait.js';
import { makeContext } from './fixtures.js';

// The RTU slave's status line as the runner writes it (docs/architecture.md#modbus-slave): a slave
// switched on without a device does not run, so its apply rejects and the line says why; the meter
// it emulates is a fact, and one that does not run is shown as such, never replaced by another.

test('an RTU slave switched on without a device is retrying with the reason; switched off it is disabled and shows whether its meter runs', async (t) => {
  const { ctx, cleanup } = makeContext({
    env: {
      METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
      METER_GATEWAY_METERS: JSON.stringify([{ id: 'pv', name: 'PV', role: 'pv', source: 'simulator' }]),
      METER_GATEWAY_SERVICES_MODBUS_RTU_METER: 'pv',
    },
  });
  const running = runOutput(ctx, createModbusRtuService(ctx));
  t.after(async () => {
    await running.stop();
    cleanup();
  });
  const line = () => ctx.services.get('modbus_rtu') as ModbusRtuStatus | undefined;
  await running.start();
  assert.equal(line()?.state, 'retrying');
  assert.equal(line()?.error, 'services.modbus_rtu.device is not set');

  const off = ctx.config.apply(new Map<string, unknown>([['services.modbus_rtu.enable', false]]));
  assert.ok(off.ok);
  assert.deepEqual(await off.settled, []);
  assert.equal(line()?.state, 'disabled');
  assert.equal(line()?.error, undefined);
  assert.equal(line()?.meter, 'pv');
  assert.equal(line()?.meter_running, false, 'pv is not registered: no data, not the primary');

  // The meter starts (what the meters input does): the runner applies the slice with its handle.
  const store = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', clock: ctx.clock });
  t.after(() => store.close());
  ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store, source: () => 'simulator' });
  await waitFor('the meter to be followed', line, (status) => status?.meter_running === true);
  assert.equal(line()?.state, 'disabled');
});
