import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { closeClient, connectClient, readWords, startSlave } from './clients.js';
import { syntheticReading } from './fixtures.js';

// Local time of the process decides the date-time registers; Sydney has DST in January, not in July.
process.env.TZ = 'Australia/Sydney';

const SYSTEM_NOW = Date.UTC(2026, 6, 14, 10, 30, 15, 250); // 2026-07-14 20:30:15 AEST (no DST)
const METER_TIME = '2026-01-14T21:30:15+11:00'; // AEDT (DST)

const f32 = (value: number): string => {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatBE(value);
  return bytes.toString('hex');
};
const f64 = (value: number): string => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return bytes.toString('hex');
};
const i32 = (value: number): string => (value >>> 0).toString(16).padStart(8, '0');
const ascii = (text: string, size: number): string =>
  Buffer.concat([Buffer.from(text, 'latin1'), Buffer.alloc(size - text.length)]).toString('hex');
/** The same value with its 16-bit words in reverse order (word_order lsw). */
const wordSwapped = (hex: string): string => (hex.match(/.{4}/g) ?? []).reverse().join('');

/** [register, wire bytes in msw order] for every numeric type, signed and unsigned ids, padding, timestamps. */
const NUMERIC: Array<[{ id: string; type: string; scaler: number }, string]> = [
  [{ id: '32.7.0', type: 'short', scaler: 1 }, '08fd'], // 2301
  [{ id: '32.7.0', type: 'int', scaler: 1 }, '000008fd'],
  [{ id: '32.7.0', type: 'long', scaler: 3 }, '00000000000382d4'], // 230100
  [{ id: '32.7.0', type: 'float', scaler: 0 }, f32(230.1)],
  [{ id: '32.7.0', type: 'double', scaler: -1 }, f64(23.01)],
  [{ id: 'power.active.l2', type: 'short', scaler: 3 }, 'fe64'], // -412 W
  [{ id: 'power.active.l2', type: 'long', scaler: 6 }, 'fffffffffff9b6a0'], // -412000 mW
  [{ id: 'current.l2', type: 'double', scaler: 0 }, f64(-1.87)],
  [{ id: '51.7.0', type: 'int', scaler: 2 }, '000000bb'], // unsigned current: 187
  [{ id: '1', type: 'short', scaler: 0 }, 'ffff'],
  [{ id: '1', type: 'long', scaler: 0 }, 'ffffffffffffffff'],
  [{ id: '0', type: 'float', scaler: 0 }, '00000000'],
  [{ id: 'report.timestamp', type: 'int', scaler: 0 }, i32(Date.parse(METER_TIME) / 1000)],
  [{ id: 'sys.timestamp', type: 'int', scaler: 0 }, i32(Math.floor(SYSTEM_NOW / 1000))],
  [{ id: 'conv_factor', type: 'float', scaler: 0 }, '40200000'], // 2.5
  [{ id: '96.14.0', type: 'int', scaler: 0 }, '00000002'],
  [{ id: '9.7.0', type: 'float', scaler: 3 }, f32(1301)],
  [{ id: '1.8.0', type: 'double', scaler: 3 }, f64(35802467)],
];

/**
 * Byte arrays: never word-swapped, byte 0 is the high byte of the first word (the device's byte-array rule).
 */
const BYTE_ARRAYS: Array<[string, string]> = [
  ['96.1.0', ascii('E0043007123456715', 24)],
  ['96.1.1', ascii('MT382-1000', 24)],
  ['42.0.0', ascii('ISK5\\2M550T-1011', 24)],
  ['sys.id', 'b827eb12a4f0'],
  ['sys.firmware', '020107000000'],
  ['report.date_time', '07ea010e151e0f01'], // 2026-01-14 21:30:15 DST
  ['sys.date_time', '07ea070e141e0f00'], // 2026-07-14 20:30:15 no DST
];

test('custom layout, msw and lsw, every type and every byte-array id, byte for byte over TCP', async (t) => {
  const slave = await startSlave({ env: { METER_GATEWAY_METER_CONV_FACTOR: '2.5' }, now: () => SYSTEM_NOW });
  t.after(() => slave.stop());
  const numeric = NUMERIC.map(([register]) => register);
  const bytes = BYTE_ARRAYS.map(([id]) => ({ id }));
  const layout = [
    { start_address: 1000, word_order: 'msw', registers: numeric },
    { start_address: 2000, word_order: 'lsw', registers: numeric },
    { start_address: 3000, registers: bytes },
    { start_address: 3100, word_order: 'lsw', registers: bytes },
  ];
  const applied = slave.ctx.config.apply(new Map([['modbus.layout', layout]]));
  assert.ok(applied.ok, JSON.stringify(applied));
  slave.ctx.store.ingest({ ...syntheticReading(), meterTime: METER_TIME });

  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  const msw = NUMERIC.map(([, hex]) => hex).join('');
  const words = msw.length / 4;
  assert.equal((await readWords(client, 1000, words)).toString('hex'), msw);
  assert.equal(
    (await readWords(client, 2000, words)).toString('hex'),
    NUMERIC.map(([, hex]) => wordSwapped(hex)).join(''),
  );
  const arrays = BYTE_ARRAYS.map(([, hex]) => hex).join('');
  assert.equal((await readWords(client, 3000, arrays.length / 4)).toString('hex'), arrays);
  assert.equal((await readWords(client, 3100, arrays.length / 4)).toString('hex'), arrays);
  // Gaps between the sets read 0.
  assert.match((await readWords(client, 1000 + words, 125)).toString('hex'), /^0+$/);
});

test('a layout change applies at once; a null layout (what DELETE stores) brings back the default', async (t) => {
  const slave = await startSlave();
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  assert.equal((await readWords(client, 1, 2)).toString('hex'), f32(230.1));
  slave.ctx.config.apply(
    new Map([['modbus.layout', [{ start_address: 1, registers: [{ id: '52.7.0', type: 'float' }] }]]]),
  );
  assert.equal((await readWords(client, 1, 2)).toString('hex'), f32(229.8));
  assert.equal((await readWords(client, 3, 2)).toString('hex'), '00000000');
  slave.ctx.config.apply(new Map([['modbus.layout', null]]));
  assert.equal((await readWords(client, 1, 4)).toString('hex'), f32(230.1) + f32(229.8));
});

test('stale readings in a custom layout: counters keep their last value in every type, instantaneous values do not', async (t) => {
  const slave = await startSlave({ staleAfterMs: 200 });
  t.after(() => slave.stop());
  const layout = [
    {
      start_address: 10,
      word_order: 'lsw',
      registers: [
        { id: '1.8.0', type: 'int', scaler: 0 },
        { id: '2.8.1', type: 'float', scaler: 0 },
        { id: '4.8.0', type: 'long', scaler: 2 },
        { id: '1.7.0', type: 'float', scaler: 3 },
        { id: '32.7.0', type: 'short', scaler: 1 },
        { id: 'power.active', type: 'double', scaler: 0 },
      ],
    },
  ];
  assert.ok(slave.ctx.config.apply(new Map([['modbus.layout', layout]])).ok);
  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  const keepAlive = setInterval(() => undefined, 1000); // the store's stale timer is unref'd
  t.after(() => clearInterval(keepAlive));
  const counters = wordSwapped('00008bda') + wordSwapped(f32(1234.567)) + wordSwapped('00000000000030b3');
  slave.ctx.store.ingest(syntheticReading());
  const fresh = (await readWords(client, 10, 15)).toString('hex');
  assert.equal(fresh.slice(0, 32), counters); // 35802 kWh, 1234.567 kWh, 12467 (124.67 kvarh x 100)
  assert.equal(fresh.slice(32, 40), wordSwapped(f32(1234)));
  await once(slave.ctx.store, 'meter'); // status NO DATA after 200 ms without a frame
  assert.equal(slave.ctx.store.latest, undefined);
  const stale = (await readWords(client, 10, 15)).toString('hex');
  assert.equal(stale.slice(0, 32), counters);
  assert.equal(stale.slice(32, 40), wordSwapped(f32(NaN)));
  assert.equal(stale.slice(40, 44), '0000');
  assert.equal(stale.slice(44), wordSwapped(f64(NaN)));
});
