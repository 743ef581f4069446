import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import type { QuarterRecord } from '../../src/history/recorder.js';
import { quarterPayload } from '../../src/mqtt/quarters-publisher.js';
import { quarterExtras } from '../../src/history/quarter-extras.js';
import { peakQuarterMeter } from '../../src/peak/quarter-meter.js';
import { quarterSamples, SERIES } from '../../src/push/series.js';
import type { PriceSignal } from '../../src/price-signal.js';

registerConfigFormats();

const T = 1_790_000_100 - (1_790_000_100 % 900);
const record: QuarterRecord = {
  counters: {
    t: T,
    at: T * 1000 + 899_000,
    eIn: 1000.5,
    eOut: 20,
    eInT1: null,
    eInT2: null,
    eOutT1: null,
    eOutT2: null,
  },
  // 0.75 kWh imported in the quarter: the guard's quarter value is 3 kW.
  point: { t: T, n: 900, eIn: 0.75, eOut: 0.1, pIn: { n: 2, min: 2, sum: 6, max: 4 } },
};
const prices: PriceSignal = {
  quarterAt: (ms) =>
    ms === T * 1000
      ? { start: ms, end: ms + 900_000, import: 0.3, export: 0.05, estimated: false }
      : undefined,
  quarters: () => [],
  onChange: () => () => undefined,
};
const labels = { site: 's', gateway: 'G', extra: {} };

test('push records: the guarded meter carries the peak guard quarter value, price and cost when known', () => {
  const samples = quarterSamples(record, { meter: 'main', role: 'grid' }, labels, prices, true);
  const value = (name: string) => samples.find((s) => s.name === name)?.value;
  assert.equal(value(SERIES.demand), 3000);
  assert.equal(value(SERIES.priceImport), 0.3);
  assert.equal(value(SERIES.priceExport), 0.05);
  assert.equal(value(SERIES.cost), 0.225);
  assert.equal(value(SERIES.credit), 0.005);
  assert.equal(samples.find((s) => s.name === SERIES.demand)!.timestamp, (T + 900) * 1000);
  // Another meter, and a quarter the price series does not know: neither.
  const other = quarterSamples(
    { ...record, counters: { ...record.counters, t: T + 900 } },
    { meter: 'pv', role: 'pv' },
    labels,
    prices,
    false,
  );
  assert.deepEqual(
    other.map((s) => s.name).filter((name) => name === SERIES.demand || name === SERIES.priceImport),
    [],
  );
});

test('push records: the guarded meter is the peak guard meter while it runs with quarter-hour windows', () => {
  const config = (env: Record<string, string>) => ConfigStore.load({ env }).config;
  assert.equal(peakQuarterMeter(config({})), undefined);
  assert.equal(
    peakQuarterMeter(
      config({
        METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
        METER_GATEWAY_SERVICES_PEAK_GUARD_MODEL: 'be_quarter',
      }),
    ),
    'main',
  );
  // Hourly windows: the guard has no quarter value.
  assert.equal(
    peakQuarterMeter(
      config({
        METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
        METER_GATEWAY_SERVICES_PEAK_GUARD_MODEL: 'se_max_hour',
      }),
    ),
    undefined,
  );
});

test('MQTT quarter records: price, cost and the peak guard quarter value beside the registers', () => {
  const payload = quarterPayload(record, { id: 'main', role: 'grid' }, quarterExtras(record, prices, true));
  assert.equal(payload.average_demand_import_w, 3000);
  assert.equal(payload.import_price_per_kwh, 0.3);
  assert.equal(payload.import_cost, 0.225);
  assert.equal(payload.export_credit, 0.005);
  assert.equal(payload.import_kwh, 1000.5);
  const plain = quarterPayload(record, { id: 'pv', role: 'pv' }, quarterExtras(record, undefined, false));
  assert.equal(plain.average_demand_import_w, undefined);
  assert.equal(plain.import_price_per_kwh, undefined);
});
