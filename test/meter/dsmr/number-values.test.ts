import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  dsmrNumberAt,
  dsmrNumberStop,
  parseDsmrValue,
  parseTextValue,
} from '../../../src/meter/dsmr/values.js';

const digits = (maxLength: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength }).map((d) => d.join(''));
const sign = fc.constantFrom('', '+', '-');
const unit = fc.constantFrom('', '*kWh', '*kW', '*V', '*A', '*m3', '*Wh', '*kVArh', '*GJ', '*', '*x y');

test('numbers are the doubles Number() makes of their text, up to 22 digits, signs and -0 included', () => {
  fc.assert(
    fc.property(sign, digits(12), fc.option(digits(10)), unit, (s, whole, fraction, u) => {
      const number = `${s}${whole}${fraction === null ? '' : `.${fraction}`}`;
      const value = parseDsmrValue(`${number}${u}`);
      assert.ok(Object.is(value.value, Number(number)), `${number}${u}: ${value.value}`);
      assert.equal(value.unit, u === '' ? undefined : u.slice(1));
      assert.ok(
        Object.is(dsmrNumberAt(`((${number}${u}))`, 2, 2 + number.length + u.length), Number(number)),
      );
    }),
    { numRuns: 20_000 },
  );
});

test('text that is not a number has no value; the number-free parse keeps raw, timestamp and text', () => {
  for (const raw of [
    '',
    '.5',
    '5.',
    '1.2.3',
    '+',
    '-.',
    '12a',
    '1 2',
    '0x10',
    '1e5',
    '12*',
    '200509134558S',
  ]) {
    assert.equal(parseDsmrValue(raw).value, raw === '12*' ? 12 : undefined, raw);
    assert.ok(Number.isNaN(dsmrNumberAt(raw, 0, raw.length)) === (raw !== '12*'), raw);
  }
  assert.deepEqual(parseTextValue('200509134558S', false), {
    raw: '200509134558S',
    timestamp: '2020-05-09T13:45:58+02:00',
  });
  assert.deepEqual(parseTextValue('4B38', true), { raw: '4B38', text: 'K8' });
  assert.deepEqual(parseTextValue('0002', false), { raw: '0002' });
});

test('a number stops at the end or at the unit', () => {
  const piece = fc.constantFrom(...'0123456789.+-*kWhV (x'.split(''), '12345678901234567', '\u00b5');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.nat(), fc.nat(), (pieces, a, b) => {
      const text = pieces.join('');
      const from = text.length === 0 ? 0 : a % text.length;
      const to = from + (b % (text.length - from + 1));
      const fromText = dsmrNumberAt(text, from, to);
      if (Number.isNaN(fromText)) return;
      const stop = dsmrNumberStop(text, from, to);
      assert.ok(stop === to || text[stop] === '*', `${JSON.stringify(text.slice(from, to))}: stop ${stop}`);
      assert.ok(Object.is(Number(text.slice(from, stop)), fromText), text.slice(from, stop));
    }),
    { numRuns: 20_000 },
  );
});
