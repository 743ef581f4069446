import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDsmrDecoder } from '../../../src/meter/dsmr/decoder.js';
import { initialState, seededRandom, step } from '../../../src/meter/simulator/model.js';
import { buildTelegram } from '../../../src/meter/simulator/telegram.js';
import { SimulatorTransport } from '../../../src/meter/simulator/transport.js';
import type { Reading } from '../../../src/reading/reading.js';
import { waitFor } from '../../helpers/wait.js';

process.env.TZ = 'Europe/Amsterdam';

/** Simulates `count` telegrams `intervalS` apart from `start`, decoded by the real DSMR decoder. */
function simulate(
  seed: number,
  start: number,
  count: number,
  intervalS = 1,
): { readings: Reading[]; telegrams: Buffer[] } {
  const random = seededRandom(seed);
  const state = initialState(random, start);
  const decoder = createDsmrDecoder();
  const readings: Reading[] = [];
  const telegrams: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const now = start + i * intervalS * 1000;
    step(state, random, now, i === 0 ? 0 : intervalS);
    const telegram = buildTelegram(state, now);
    telegrams.push(telegram);
    for (const result of decoder.push(telegram, now)) {
      assert.ok(result.ok, `telegram ${i} rejected: ${result.ok ? '' : result.error.message}`);
      readings.push(result.reading);
    }
  }
  return { readings, telegrams };
}

const value = (r: Reading, obis: string): number => {
  const v = r.values.get(obis);
  assert.ok(v, `${obis} missing`);
  return v.value;
};

test('telegrams carry a valid CRC and decode through the real DSMR path', () => {
  const { readings } = simulate(1, Date.parse('2026-06-15T10:00:00+02:00'), 30);
  assert.equal(readings.length, 30);
  const first = readings[0]!;
  assert.equal(first.protocol, 'DSMR');
  assert.equal(first.identity.protocolVersion, '50');
  for (const obis of ['32.7.0', '52.7.0', '72.7.0']) {
    const volts = value(first, obis);
    assert.ok(volts > 220 && volts < 240, `${obis} = ${volts}`);
  }
  assert.equal(first.mbus[0]?.bus, 1);
  assert.ok((first.mbus[0]?.cumulative ?? 0) > 0);
});

test('same seed, same telegrams; another seed, another household', () => {
  const start = Date.parse('2026-03-02T08:00:00+01:00');
  const a = simulate(42, start, 5).telegrams.map((t) => t.toString('latin1'));
  const b = simulate(42, start, 5).telegrams.map((t) => t.toString('latin1'));
  const c = simulate(43, start, 5).telegrams.map((t) => t.toString('latin1'));
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('energy registers only grow and agree with the integrated power', () => {
  const start = Date.parse('2026-06-15T05:00:00+02:00');
  // 10 hours at one telegram per 10 s: night import, PV export around noon.
  const { readings } = simulate(7, start, 3600, 10);
  let integratedImport = 0;
  let integratedExport = 0;
  for (let i = 1; i < readings.length; i++) {
    const previous = readings[i - 1]!;
    const current = readings[i]!;
    for (const obis of ['1.8.1', '1.8.2', '2.8.1', '2.8.2']) {
      assert.ok(value(current, obis) >= value(previous, obis), `${obis} decreased at ${i}`);
    }
    integratedImport += (value(current, '1.7.0') * 10) / 3600;
    integratedExport += (value(current, '2.7.0') * 10) / 3600;
  }
  const first = readings[0]!;
  const last = readings[readings.length - 1]!;
  const imported =
    value(last, '1.8.1') + value(last, '1.8.2') - value(first, '1.8.1') - value(first, '1.8.2');
  const exported =
    value(last, '2.8.1') + value(last, '2.8.2') - value(first, '2.8.1') - value(first, '2.8.2');
  // The printed power has 3 decimals (1 W), the registers 3 decimals (1 Wh): a few Wh apart at most.
  assert.ok(Math.abs(imported - integratedImport) < 0.05, `import ${imported} vs ${integratedImport}`);
  assert.ok(Math.abs(exported - integratedExport) < 0.05, `export ${exported} vs ${integratedExport}`);
  assert.ok(imported > 0.5 && exported > 1, `import ${imported}, export ${exported}`);
});

test('PV export around noon, import in the evening, tariff and gas by the clock', () => {
  const noon = simulate(3, Date.parse('2026-06-16T13:00:00+02:00'), 1).readings[0]!;
  assert.ok(value(noon, '2.7.0') > 0.5, 'exports at noon');
  assert.equal(value(noon, '1.7.0'), 0);
  assert.ok(value(noon, '22.7.0') > 0, 'phase export at noon');
  assert.equal(noon.tariff, 2, 'weekday daytime: normal tariff');
  const evening = simulate(3, Date.parse('2026-06-16T20:00:00+02:00'), 1).readings[0]!;
  assert.ok(value(evening, '1.7.0') > 0.5, 'imports in the evening');
  const night = simulate(3, Date.parse('2026-06-17T03:00:00+02:00'), 1).readings[0]!;
  assert.equal(night.tariff, 1, 'night: low tariff');
  const gas = simulate(3, Date.parse('2026-06-16T13:02:30+02:00'), 200, 3).readings;
  const captures = new Set(gas.map((r) => r.mbus[0]?.dateTime));
  assert.deepEqual(
    [...captures],
    ['2026-06-16T13:00:00+02:00', '2026-06-16T13:05:00+02:00', '2026-06-16T13:10:00+02:00'],
  );
});

test('the transport emits a telegram at once and then one per interval', async () => {
  const transport = new SimulatorTransport(1, 50);
  const chunks: Buffer[] = [];
  transport.on('data', (chunk) => chunks.push(chunk));
  await transport.open();
  assert.equal(chunks.length, 2, 'first telegram immediately, in two chunks');
  const telegrams = await waitFor(
    'a telegram after the interval',
    () => Buffer.concat(chunks).toString('latin1').split('/MGW5').length - 1,
    (count) => count >= 2,
  );
  await transport.close();
  assert.ok(telegrams >= 2, `${telegrams} telegrams`);
});
