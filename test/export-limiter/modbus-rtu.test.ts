import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInverterSource } from '../../src/export-limiter/modbus-link.js';
import { joinRtuBus } from '../../src/modbus-protocol/rtu-bus.js';
import { requireCommand } from '../helpers/environment.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { startRig } from './rig.js';

/**
 * `modbus-rtu:` inverter sources (docs/architecture.md#shared-rs485-bus): the limiter drives a
 * simulated inverter answering as RTU unit 3 on the far end of a socat pty pair, through the same
 * RS485 bus table the Modbus meters use.
 */

test('modbus-rtu: sources parse as the meter sources do (9600 8N1 unit 1 by default); unit 0 and unknown keys are refused', () => {
  assert.deepEqual(parseInverterSource('modbus-rtu:/dev/ttyUSB0?baud=9600&unit=1'), {
    kind: 'rtu',
    path: '/dev/ttyUSB0',
    baudRate: 9600,
    parity: 'none',
    stopBits: 1,
    unit: 1,
  });
  assert.deepEqual(parseInverterSource('modbus-rtu:/dev/ttyAMA0?baud=19200&unit=7&parity=even&stopbits=2'), {
    kind: 'rtu',
    path: '/dev/ttyAMA0',
    baudRate: 19200,
    parity: 'even',
    stopBits: 2,
    unit: 7,
  });
  assert.equal(parseInverterSource('modbus-rtu:/dev/ttyUSB0?unit=0'), undefined);
  assert.equal(parseInverterSource('modbus-rtu:/dev/ttyUSB0?unit=248'), undefined);
  assert.equal(parseInverterSource('modbus-rtu:/dev/ttyUSB0?baud=1234'), undefined);
  assert.equal(parseInverterSource('modbus-rtu:/dev/ttyUSB0?profile=sdm630'), undefined);
  assert.equal(parseInverterSource('modbus-rtu:ttyUSB0'), undefined);
  assert.equal(parseInverterSource('modbus-rtu:/dev/tty\nUSB0'), undefined);
});

test('an inverter on RS485 (modbus-rtu: over a socat pty pair, unit 3): house 800 W, limit 16 % (FC16 [160, 0, 120, 0, 1]), grid within ±50 W; the bus is the shared one', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mg-limiter-rtu-'));
  const pty = new SocatPty(dir);
  await pty.start();
  t.after(async () => {
    await pty.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const rig = await startRig({
    load: () => 800,
    inverter: { deadTimeMs: 2000, pv: () => 3000 },
    inverterSetting: { source: `modbus-rtu:${pty.hostPath}?baud=9600&unit=3` },
    setup: (_ctx, inverter) => inverter.serveRtu(pty.meterPath, 3),
  });
  try {
    await rig.run(1000);
    const first = rig.inverter.writes[0];
    assert.ok(first, 'a limit was written over RTU');
    assert.equal(first.address, rig.inverter.address.m123 + 5);
    assert.deepEqual(first.words, [160, 0, 120, 0, 1]);
    assert.equal(rig.inverter.connections, 0, 'no Modbus TCP connection');
    assert.ok(rig.inverter.rtuRequests > 5, `${rig.inverter.rtuRequests} RTU requests`);
    let worst = 0;
    await rig.run(10_000);
    await rig.run(30_000, () => (worst = Math.max(worst, Math.abs(rig.gridW()))));
    assert.ok(worst <= 50, `grid within ±50 W (worst ${worst.toFixed(0)} W)`);
    assert.equal(rig.limiter!.status().state, 'limiting');
    // The limiter holds the device path in the bus table the meters use: a meter asking for the
    // same path with other line settings is refused rather than opening the port a second time.
    await assert.rejects(
      joinRtuBus(
        { path: pty.hostPath, baudRate: 19200, parity: 'none', stopBits: 1 },
        () => Promise.reject(new Error('a second opener')),
        1000,
        () => undefined,
      ),
      /already open with other line settings/,
    );
  } finally {
    await rig.close();
  }
});
