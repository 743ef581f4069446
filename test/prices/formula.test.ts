// The contract formula with the Dutch 2026 numbers: markup 0.0182 EUR/kWh, energy tax 0.09160 EUR/kWh
// excl. VAT (Belastingdienst, tarieven energiebelasting 2026), VAT 21 %.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFormula, describeFormula } from '../../src/prices/formula.js';

process.env.TZ = 'Europe/Amsterdam';

const NL_2026 = { a: 1, markup: 0.0182, vat: 0.21, tax: 0.0916 * 1.21, zones: '', b: 1, fee: 0 };

test('NL 2026: spot 81.92 / -0.01 / -150 EUR/MWh import at 0.231981 / 0.132846 / -0.048642 EUR/kWh', () => {
  const formula = compileFormula(NL_2026);
  const at = Date.parse('2026-06-01T18:00Z');
  const close = (actual: number, expected: number) =>
    assert.ok(Math.abs(actual - expected) <= 0.000001, `${actual} vs ${expected}`);
  close(formula.importPrice(81.92, at), 0.231981);
  close(formula.importPrice(-0.01, at), 0.132846);
  close(formula.importPrice(-150, at), -0.048642);
});

test('export = spot x b - fee; charge zones add by local time of day', () => {
  const formula = compileFormula({ ...NL_2026, b: 0.9, fee: 0.01, zones: '07:00=0.05 22:00=0.01' });
  assert.equal(formula.exportPrice(100), 0.08);
  const base = compileFormula(NL_2026).importPrice(50, Date.parse('2026-06-01T10:00Z'));
  assert.equal(
    formula.importPrice(50, Date.parse('2026-06-01T10:00Z')),
    Math.round((base + 0.05) * 1e9) / 1e9,
  );
  assert.equal(
    formula.importPrice(50, Date.parse('2026-06-01T01:00Z')),
    Math.round((base + 0.01) * 1e9) / 1e9,
  );
  assert.match(describeFormula(NL_2026).import, /\(spot × 1 \+ 0.0182\) × \(1 \+ 0.21\)/);
});
