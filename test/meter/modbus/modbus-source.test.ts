import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { SerialPort } from 'serialport';
import { METER_PROFILES, FLOAT_READ_MAPS } from '../../../src/modbus-protocol/profiles/catalogue.js';
import { decodeFloats } from '../../../src/modbus-protocol/profiles/float-points.js';
import { gridValues, type GridValues } from '../../../src/modbus-protocol/profiles/grid-values.js';
import { decodeMeterModel } from '../../../src/modbus-protocol/profiles/sunspec.js';
import { BlockSpace } from '../../../src/modbus/register-space.js';
import { interFrameMs } from '../../../src/modbus-protocol/rtu-frame.js';
import { RtuSlave } from '../../../src/modbus/rtu-slave.js';
import { ModbusMeterTransport } from '../../../src/meter/modbus/modbus-transport.js';
import { readingFromRegisters } from '../../../src/meter/modbus/to-reading.js';
import { parseSource, SourceError, type ModbusSource } from '../../../src/meter/source.js';
import { withDerivedValues } from '../../../src/reading/derive.js';
import type { Reading } from '../../../src/reading/reading.js';
import { requireCommand, requirePeer } from '../../helpers/environment.js';
import { syntheticReading } from '../../modbus/fixtures.js';
import { startSlave } from '../../modbus/clients.js';
import { PYTHON, UNIT, hasPymodbus, startRig } from '../../modbus/rtu-rig.js';
import { SocatPty } from '../transport/socat-pty.js';
import { meterInput, tempDir, waitForStatus } from '../transport/meter-input-harness.js';
import { waitFor } from '../../helpers/wait.js';
import { SDM630_VALUES, startPymodbusMeter, stopPymodbusMeter } from './pymodbus-meter.js';

/**
 * Modbus meters as the input: `modbus-rtu:` and `modbus-tcp:` sources polled with modbus-serial
 * as the master and decoded with the profile maps the slaves serve.
 */

test('modbus-rtu: and modbus-tcp: sources: unit, profile, line and interval, with clear errors', () => {
  assert.deepEqual(parseSource('modbus-rtu:/dev/ttyUSB0?unit=1&profile=sdm630&baud=9600&parity=none'), {
    kind: 'modbus-rtu',
    path: '/dev/ttyUSB0',
    baudRate: 9600,
    parity: 'none',
    stopBits: 1,
    unitId: 1,
    profile: 'sdm630',
    intervalMs: 1000,
  });
  assert.deepEqual(parseSource('modbus-tcp://10.0.0.7:1502?unit=2&profile=sunspec&interval=5'), {
    kind: 'modbus-tcp',
    host: '10.0.0.7',
    port: 1502,
    unitId: 2,
    profile: 'sunspec',
    intervalMs: 5000,
  });
  const defaults = parseSource('modbus-tcp://meter.local') as ModbusSource;
  assert.equal(defaults.kind === 'modbus-tcp' && defaults.port, 502);
  assert.equal(defaults.profile, 'sunspec');
  assert.equal(
    (parseSource('modbus-rtu:/dev/ttyAMA0?parity=even&stopbits=1') as ModbusSource).profile,
    'sdm630',
  );
  for (const [source, message] of [
    ['modbus-rtu:/dev/ttyUSB0?profile=whatwatt', /profile must be one of sdm630/],
    ['modbus-rtu:/dev/ttyUSB0?unit=0', /unit must be/],
    ['modbus-rtu:/dev/ttyUSB0?unit=248', /unit must be/],
    ['modbus-rtu:ttyUSB0', /absolute device path/],
    ['modbus-rtu:/dev/ttyUSB0?databits=7', /8 data bits/],
    ['modbus-rtu:/dev/ttyUSB0?interval=0', /interval/],
    ['modbus-tcp://:502', /host/],
  ] as const) {
    assert.throws(
      () => parseSource(source),
      (error: Error) => error instanceof SourceError && message.test(error.message),
    );
  }
});

function fresh(): GridValues {
  const reading = withDerivedValues(syntheticReading());
  return gridValues({
    reading,
    identity: reading.identity,
    system: { id: 'B827EB12A4F0', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 },
    direction: 'import_positive',
    nominalFrequency: 50,
  });
}

function near(got: number | undefined, want: number, what: string): void {
  assert.ok(got !== undefined, `${what} missing`);
  assert.ok(Math.abs(got - want) <= Math.abs(want) * 1e-6 + 1e-9, `${what}: ${got} != ${want}`);
}

test('one table, two ways: what a profile serves decodes back to the same quantities', () => {
  const values = fresh();
  for (const profile of ['sdm630', 'sdm72', 'dtsu666', 'sdm120'] as const) {
    const space = new BlockSpace(METER_PROFILES[profile]);
    space.rebuild(values);
    const map = FLOAT_READ_MAPS[profile];
    const measured = {};
    for (const poll of map.polls) {
      const bytes = space.read(poll.table, poll.start, poll.words);
      assert.ok(Buffer.isBuffer(bytes), `${profile} poll ${poll.start}`);
      Object.assign(measured, decodeFloats(map.points, poll.start, bytes));
    }
    const m = measured as Record<string, number>;
    near(m.power, 822, `${profile} W`);
    near(m.importEnergy, 35802.47, `${profile} kWh`);
    near(m.frequency, 50, `${profile} Hz`);
    if (profile !== 'sdm120') {
      near(m['voltage.1'], 229.8, `${profile} V L2`);
      near(m['phasePower.1'], -412, `${profile} W L2`);
      near(m['current.2'], 1.93, `${profile} A L3`);
    }
  }
  const sunspec = new BlockSpace(METER_PROFILES.sunspec);
  sunspec.rebuild(values);
  const model = sunspec.read('holding', 40072, 103);
  assert.ok(Buffer.isBuffer(model));
  const m = decodeMeterModel(model);
  assert.equal(m.power, 822);
  assert.equal(m['phasePower.1'], -412);
  assert.equal(m['voltage.0'], 230.1);
  assert.equal(m['current.0'], 3.62);
  assert.equal(m.frequency, 50);
  assert.equal(m.powerFactor, 0.987);
  assert.equal(m.importEnergy, 35802.467);
  assert.equal(m.exportEnergy, 3580.245);
});

test('registers to a Reading: signed W split into import / export kW, the one quantity table', () => {
  const reading = readingFromRegisters(
    { power: -1500, 'phasePower.0': 200, 'voltage.0': 230, 'current.0': -2, frequency: 50, importEnergy: 10 },
    { vendor: 'Eastron' },
    1234,
  );
  const value = (obis: string): number | undefined => reading.values.get(obis)?.value;
  assert.equal(reading.protocol, 'MODBUS');
  assert.equal(reading.receivedAt, 1234);
  assert.equal(value('1.7.0'), 0);
  assert.equal(value('2.7.0'), 1.5);
  assert.equal(value('21.7.0'), 0.2);
  assert.equal(value('22.7.0'), 0);
  assert.equal(value('32.7.0'), 230);
  assert.equal(value('31.7.0'), 2);
  assert.equal(value('14.7.0'), 50);
  assert.equal(value('1.8.0'), 10);
  assert.equal(value('2.8.0'), undefined);
});

function value(reading: Reading | undefined, obis: string): number | undefined {
  return reading?.values.get(obis)?.value;
}

test('a pymodbus SDM630 on RS485 read by the modbus-rtu source; silent meter NO DATA, then back', async (t) => {
  if (
    !requireCommand(t, 'socat') ||
    !requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')
  )
    return;
  const dir = tempDir('mg-modbus-src-');
  const pty = new SocatPty(dir);
  await pty.start();
  let meter = await startPymodbusMeter(PYTHON, pty.meterPath, 5);
  const harness = meterInput(dir, `modbus-rtu:${pty.hostPath}?unit=5&profile=sdm630&interval=0.2`, {
    METER_GATEWAY_METER_TIMEOUT: '1',
  });
  t.after(async () => {
    await harness.close();
    await stopPymodbusMeter(meter);
    await pty.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await harness.input.start();
  await waitForStatus(harness.store, ['OK']);
  const reading = harness.store.latest;
  assert.equal(harness.store.meter.protocol, 'MODBUS');
  assert.equal(harness.store.meter.interface, 'RS485');
  assert.equal(harness.store.meter.identity.model, 'SDM630');
  assert.equal(value(reading, '32.7.0'), SDM630_VALUES[0x0000]);
  assert.equal(value(reading, '52.7.0'), SDM630_VALUES[0x0002]);
  assert.equal(value(reading, '31.7.0'), SDM630_VALUES[0x0006]);
  assert.equal(value(reading, '1.7.0'), 1.05);
  assert.equal(value(reading, '2.7.0'), 0);
  assert.equal(value(reading, '21.7.0'), 1);
  assert.equal(value(reading, '42.7.0'), 0.25);
  assert.equal(value(reading, '23.7.0'), 0.12);
  assert.equal(value(reading, '9.7.0'), 1.25);
  assert.equal(value(reading, '13.7.0'), 0.95);
  assert.equal(value(reading, '14.7.0'), 49.75);
  assert.equal(value(reading, '1.8.0'), 12345.5);
  assert.equal(value(reading, '2.8.0'), 678.25);
  assert.equal(value(reading, '3.8.0'), 12.5);
  assert.equal(value(reading, '4.8.0'), 3.75);
  // Per-phase import / export kWh, 30347..30357.
  assert.equal(value(reading, '21.8.0'), SDM630_VALUES[0x015a]);
  assert.equal(value(reading, '61.8.0'), SDM630_VALUES[0x015e]);
  assert.equal(value(reading, '42.8.0'), SDM630_VALUES[0x0162]);

  // The meter stops answering: NO DATA after meter.timeout; it answers again: OK.
  assert.equal(harness.store.counters.timeouts, 0);
  await stopPymodbusMeter(meter);
  await waitForStatus(harness.store, ['NO DATA', 'NOT CONNECTED']);
  assert.equal(harness.store.latest, undefined);
  // Reported as every source reports its errors: the counters of /api/v1/system, the meter
  // service's last error and a log line.
  await waitFor('a counted timeout', () => harness.store.counters.timeouts >= 1);
  assert.match(
    String(harness.context.services.get('meter')?.last_error),
    /^timeout: no reply within 1000 ms/,
  );
  assert.ok(
    harness.warnings.some((line) => line.includes('(timeout): no reply')),
    harness.warnings.join('\n'),
  );
  meter = await startPymodbusMeter(PYTHON, pty.meterPath, 5);
  await waitForStatus(harness.store, ['OK'], 60_000);
  assert.equal(value(harness.store.latest, '1.8.0'), 12345.5);
});

function rtuSource(path: string, profile: string, unit = UNIT): ModbusSource {
  return parseSource(`modbus-rtu:${path}?unit=${unit}&profile=${profile}&interval=0.1`) as ModbusSource;
}

test("the modbus-rtu source reads the daemon's own RTU slave: values equal to the feeding meter", async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  const feeding = withDerivedValues(syntheticReading());
  for (const profile of ['sdm630', 'dtsu666', 'sunspec']) {
    assert.ok(rig.ctx.config.apply(new Map([['services.modbus_rtu.profile', profile]])).ok);
    rig.ctx.store.ingest(syntheticReading());
    const transport = new ModbusMeterTransport(rtuSource(rig.pty.meterPath, profile));
    const readings: Reading[] = [];
    transport.on('reading', (reading) => readings.push(reading));
    await transport.open();
    await waitFor(`a ${profile} reading`, () => readings.length > 0);
    await transport.close();
    const read = readings[0]!;
    const net = (r: Reading | undefined): number => (value(r, '1.7.0') ?? 0) - (value(r, '2.7.0') ?? 0);
    near(net(read), net(feeding), `${profile} net kW`);
    for (const obis of ['32.7.0', '52.7.0', '72.7.0', '31.7.0', '71.7.0', '13.7.0', '1.8.0', '2.8.0'])
      near(value(read, obis), value(feeding, obis)!, `${profile} ${obis}`);
    near(value(read, '41.7.0')! - value(read, '42.7.0')!, -0.412, `${profile} L2 kW`);
    near(value(read, '14.7.0'), 50, `${profile} Hz`);
    assert.equal(transport.counters.exceptions + transport.counters.timeouts, 0, profile);
  }
});

test('modbus-tcp: a SunSpec meter found by walking the chain, identity from model 1', async (t) => {
  const slave = await startSlave({ env: { METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sunspec' } });
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  const source = parseSource(`modbus-tcp://127.0.0.1:${slave.port}?unit=1&interval=0.1`) as ModbusSource;
  const transport = new ModbusMeterTransport(source);
  const readings: Reading[] = [];
  transport.on('reading', (reading) => readings.push(reading));
  await transport.open();
  t.after(() => transport.close());
  await waitFor('two SunSpec readings', () => readings.length >= 2);
  const read = readings[1]!;
  assert.deepEqual(read.identity, { vendor: 'meter-gateway', model: 'MT382-1000', id: 'E0043007123456715' });
  assert.equal(value(read, '1.7.0'), 0.822);
  assert.equal(value(read, '2.7.0'), 0);
  assert.equal(value(read, '42.7.0'), 0.412);
  assert.equal(value(read, '32.7.0'), 230.1);
  assert.equal(value(read, '31.7.0'), 3.62);
  assert.equal(value(read, '1.8.0'), 35802.467);
  assert.equal(value(read, '2.8.0'), 3580.245);
  assert.equal(value(read, '14.7.0'), 50);
  assert.equal(transport.counters.readings, readings.length);
});

test('exception replies and wrong CRCs are counted per source and retried', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  // Exceptions: a DTSU666 source polling a slave that serves the SDM630 map (no FC 03 at 0x2000).
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  const wrongMap = new ModbusMeterTransport(rtuSource(rig.pty.meterPath, 'dtsu666'));
  const rejected: string[] = [];
  wrongMap.on('reject', (error) => rejected.push(error.kind));
  await wrongMap.open();
  await waitFor('two exception replies (a retry)', () => wrongMap.counters.exceptions >= 2);
  await wrongMap.close();
  assert.equal(wrongMap.counters.readings, 0);
  assert.ok(rejected.length >= 2 && rejected.every((kind) => kind === 'parse'));

  // CRC errors: a slave on a second pty pair whose replies carry a corrupted CRC.
  const dir = tempDir('mg-modbus-crc-');
  const pty = new SocatPty(dir);
  await pty.start();
  const port = new SerialPort({ path: pty.meterPath, baudRate: 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  const space = new BlockSpace(METER_PROFILES.sdm630);
  space.rebuild(fresh());
  const slave = new RtuSlave({
    unitId: 9,
    space,
    silenceMs: interFrameMs(9600, 'none', 1),
    send: (frame) => {
      frame[frame.length - 1] = frame[frame.length - 1]! ^ 0x5a;
      port.write(frame);
    },
  });
  port.on('data', (chunk: Buffer) => slave.receive(chunk));
  t.after(async () => {
    slave.reset();
    await new Promise<void>((resolve) => port.close(() => resolve()));
    await pty.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const corrupted = new ModbusMeterTransport(rtuSource(pty.hostPath, 'sdm630', 9));
  const kinds: string[] = [];
  corrupted.on('reject', (error) => kinds.push(error.kind));
  await corrupted.open();
  await waitFor('two CRC errors (a retry)', () => corrupted.counters.crcErrors >= 2);
  await corrupted.close();
  assert.equal(corrupted.counters.readings, 0);
  assert.ok(kinds.includes('crc'));
});
