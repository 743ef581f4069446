import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROBE_PATH, registerProbeRoute } from '../../src/http/routes/probe.js';
import { PROBE_STEPS } from '../../src/meter/probe/probe.js';
import { parseSource, SourceError } from '../../src/meter/source.js';
import { startHttpContext } from '../helpers/http-context.js';

test('the probe refuses a device path with a newline or a NUL (also a NUL after the meter port) with 400', async () => {
  const steps = [{ ...PROBE_STEPS[0]!, durationMs: 1_000 }];
  const h = await startHttpContext({
    env: { METER_GATEWAY_METER_SOURCE: 'serial:/dev/ttyS0?protocol=dsmr' },
    routes: (router, ctx) => registerProbeRoute(router, ctx, { steps }),
  });
  try {
    for (const device of ['/dev/ttyS0\u0000', '/dev/ttyUSB9\n<3>error: [main] forged line', '/dev/tty\rS1']) {
      const response = await fetch(`${h.baseUrl}${PROBE_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ device }),
      });
      const body = (await response.json()) as { error: string; message: string };
      assert.equal(response.status, 400, JSON.stringify(device));
      assert.equal(body.error, 'validation_failed');
      assert.match(body.message, /without control characters/);
    }
  } finally {
    await h.close();
  }
});

test('meter.source serial: and services.modbus_rtu.device take only absolute paths without control characters', async () => {
  for (const source of ['serial:/dev/ttyUSB0\u0000', 'serial:/dev/tty\nUSB0', 'serial:ttyUSB0']) {
    assert.throws(() => parseSource(source), SourceError, JSON.stringify(source));
  }
  assert.equal(parseSource('serial:/dev/serial/by-id/usb-FTDI_x-if00?protocol=dsmr').kind, 'serial');

  const h = await startHttpContext();
  try {
    for (const device of ['ttyUSB0', './ttyUSB0', '/dev/ttyUSB0\u0000', '/dev/tty\nUSB0']) {
      const applied = h.ctx.config.apply(new Map([['services.modbus_rtu.device', device]]));
      assert.equal(applied.ok, false, JSON.stringify(device));
    }
    assert.equal(h.ctx.config.apply(new Map([['services.modbus_rtu.device', '/dev/ttyAMA0']])).ok, true);
    assert.equal(
      h.ctx.config.apply(new Map([['services.modbus_rtu.device', '']])).ok,
      true,
      'empty: not set',
    );
  } finally {
    await h.close();
  }
});
