// The peak guard's marginal cost with day-ahead prices (docs/architecture.md#prices): with
// services.costs.import.mode dynamic the window's energy above the billed demand is counted at the
// quarter's import price from ctx.prices (the price store, fed by a loopback ENTSO-E server), a
// quarter without a market price at the fixed fallback flagged estimated; other modes keep the
// capacity charge alone. All on the virtual clock.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { PriceStore } from '../../src/prices/price-store.js';
import { valuesOf } from '../../src/reading/reading.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { a44 } from '../prices/fixtures.js';
import { startPriceServer } from '../prices/price-server.js';

process.env.TZ = 'Europe/Brussels';
registerConfigFormats();

/** 2026-11-29 14:00 CET: quarter position 57 of the local day that began 2026-11-28T23:00Z. */
const AT_1400 = Date.parse('2026-11-29T13:00:00Z');
const QUARTER = 900_000;
/** 14:00 300 EUR/MWh, 14:15 no price (A01 gap), 14:30 -100 EUR/MWh; every other quarter 80. */
const spotOf = (position: number): number | undefined =>
  position === 57 ? 300 : position === 58 ? undefined : position === 59 ? -100 : 80;
/** The fixed price a quarter without a market price falls back to. */
const FALLBACK = 0.25;
const CAPACITY = 40.4;
const FLOOR = 2.5;

interface Rig {
  ctx: AppContext;
  clock: VirtualClock;
  guard: PeakGuard;
  /** `seconds` readings at `kw` import, one per virtual second. */
  feed(kw: number, seconds: number): Promise<void>;
}

async function rig(t: TestContext, importMode: 'dynamic' | 'fixed'): Promise<Rig> {
  const server = await startPriceServer((url) => {
    const start = url.searchParams.get('periodStart')!;
    const iso = (s: string) =>
      `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(8, 10)}:${s.slice(10, 12)}Z`;
    const from = iso(start);
    const to = iso(url.searchParams.get('periodEnd')!);
    const count = (Date.parse(to) - Date.parse(from)) / QUARTER;
    const points: Array<[number, number]> = [];
    for (let position = 1; position <= count; position += 1) {
      const spot = spotOf(position);
      if (spot !== undefined) points.push([position, spot]);
    }
    return {
      status: 200,
      body: a44([{ curve: 'A01', periods: [{ start: from, end: to, resolution: 'PT15M', points }] }]),
    };
  });
  t.after(() => server.close());
  const clock = new VirtualClock(AT_1400);
  const ctx = createAppContext({
    clock,
    stateDir: tempDir('mg-peak-price-', t),
    staleAfterMs: 3_600_000,
    env: {
      METER_GATEWAY_METER_TIMEOUT: '3600',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'entsoe',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: '10YBE----------2',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_TOKEN: 'test-token',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENTSOE: `${server.url}/api`,
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: importMode,
      METER_GATEWAY_SERVICES_COSTS_IMPORT_PRICE: String(FALLBACK),
      METER_GATEWAY_SERVICES_COSTS_IMPORT_FALLBACK: 'fixed',
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: '[]',
      METER_GATEWAY_SERVICES_PEAK_GUARD_FLOOR_KW: String(FLOOR),
      METER_GATEWAY_SERVICES_PEAK_GUARD_EUR_PER_KW_YEAR: String(CAPACITY),
    },
    logger: linesLogger([]),
  });
  const store = new PriceStore(ctx, ctx.logger, () => 0);
  ctx.prices = store;
  const prices = runOutput(ctx, store);
  const guard = new PeakGuard(ctx, ctx.logger, { call: () => ({ ok: true }), lock: () => undefined });
  const peak = runOutput(ctx, guard);
  t.after(async () => {
    await peak.stop();
    await prices.stop();
  });
  await prices.start();
  await store.idle();
  await peak.start();
  let kwh = 1000;
  return {
    ctx,
    clock,
    guard,
    async feed(kw, seconds) {
      for (let i = 0; i < seconds; i += 1) {
        await clock.advance(1000);
        kwh += kw / 3600;
        ctx.store.ingest({
          receivedAt: clock.now(),
          protocol: 'DSMR',
          identity: {},
          values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'], '2.7.0': [0, 'kW'] }),
          mbus: [],
        });
      }
    },
  };
}

interface View {
  predicted_kw: number;
  marginal_eur: number;
  marginal_price?: number | null;
  marginal_estimated?: boolean;
}

/** Money is shown to the cent, from a predicted power rounded to the watt. */
const near = (actual: number, wanted: number) =>
  assert.ok(Math.abs(actual - wanted) <= 0.011, `${actual} is not ${wanted.toFixed(4)}`);

const viewOf = (r: Rig) => r.guard.view() as unknown as View;

/** The capacity part (month value still empty: billed at the floor) and the excess energy's part. */
function expected(view: View, price: number | null): number {
  const excess = Math.max(0, view.predicted_kw - FLOOR);
  return (excess * CAPACITY) / 12 + (price === null ? 0 : excess * 0.25 * price);
}

test('mode dynamic: the excess energy at the quarter import price; a quarter without one at the fallback, estimated; a negative price lowers it', async (t) => {
  const r = await rig(t, 'dynamic');
  assert.equal(r.ctx.prices.quarterAt(AT_1400)?.import, 0.3, 'the price day is loaded');
  assert.equal(r.ctx.prices.quarterAt(AT_1400 + QUARTER)?.import, null, '14:15 has no market price');
  // 6 kW through the 14:00 quarter.
  await r.feed(6, 120);
  let view = viewOf(r);
  assert.ok(view.predicted_kw > 5, `predicted ${view.predicted_kw}`);
  assert.equal(view.marginal_price, 0.3);
  assert.equal(view.marginal_estimated, false);
  near(view.marginal_eur, expected(view, 0.3));
  assert.ok(view.marginal_eur > expected(view, null), 'more than the capacity charge alone');
  // 14:17: no market price, the fixed fallback, flagged.
  await r.feed(6, 900);
  view = viewOf(r);
  assert.equal(view.marginal_price, FALLBACK);
  assert.equal(view.marginal_estimated, true);
  // 14:35 (the month value now holds the 6 kW windows): -100 EUR/MWh = -0.1 per kWh, and a higher demand than the month value.
  await r.feed(6, 780);
  await r.feed(9, 300);
  view = viewOf(r);
  assert.equal(view.marginal_price, -0.1);
  assert.equal(view.marginal_estimated, false);
  const month = r.guard.snapshot() as { month_value_kw: number };
  const excess = Math.max(0, view.predicted_kw - Math.max(FLOOR, month.month_value_kw));
  assert.ok(excess > 0, `excess ${excess}`);
  const capacity = (excess * CAPACITY) / 12;
  near(view.marginal_eur, capacity + excess * 0.25 * -0.1);
  assert.ok(view.marginal_eur < capacity - 0.05, 'the negative price lowers it');
});

test('mode fixed: no import price in the marginal cost, the capacity charge alone', async (t) => {
  const r = await rig(t, 'fixed');
  await r.feed(6, 120);
  const view = viewOf(r);
  assert.equal(view.marginal_price, null);
  assert.equal(view.marginal_estimated, false);
  near(view.marginal_eur, expected(view, null));
});
