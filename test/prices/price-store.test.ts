// The price store against a loopback ENTSO-E server on the virtual clock: publication retry,
// warm restart, HTTP 429, hostile answers and the computed prices.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { runOutput } from '../../src/output-runner.js';
import { PriceStore } from '../../src/prices/price-store.js';
import { pricesView } from '../../src/prices/view.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { a44, acknowledgement, fullPeriod } from './fixtures.js';
import { startPriceServer, type Answer, type PriceServer } from './price-server.js';

process.env.TZ = 'Europe/Brussels';
registerConfigFormats();

const BE = '10YBE----------2';
/** 2026-11-29 13:20 CET. */
const AT_1320 = Date.parse('2026-11-29T12:20:00Z');
const TODAY = { start: '2026-11-28T23:00Z', end: '2026-11-29T23:00Z' };
const TOMORROW = { start: '2026-11-29T23:00Z', end: '2026-11-30T23:00Z' };

/** A44 of one whole day (the ENTSO-E period runs from the request's periodStart, UTC). */
function dayAnswer(url: URL, price = (position: number) => 50 + position / 4): Answer {
  const start = url.searchParams.get('periodStart')!;
  const end = url.searchParams.get('periodEnd')!;
  const iso = (t: string) =>
    `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}Z`;
  return { status: 200, body: a44([{ curve: 'A01', periods: [fullPeriod(iso(start), iso(end), price)] }]) };
}

interface Rig {
  ctx: AppContext;
  clock: VirtualClock;
  store: PriceStore;
  server: PriceServer;
  stateDir: string;
  lines: string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The day's state file, or undefined. */
  file(day: string): string | undefined;
}

async function rig(
  t: TestContext,
  answer: PriceServer['answer'],
  at = AT_1320,
  stateDir = tempDir('mg-prices-', t),
): Promise<Rig> {
  const server = await startPriceServer(answer);
  t.after(() => server.close());
  const clock = new VirtualClock(at);
  const lines: string[] = [];
  const ctx = createAppContext({
    clock,
    stateDir,
    env: {
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'entsoe',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: BE,
      METER_GATEWAY_SERVICES_COSTS_SOURCE_TOKEN: 'test-token',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENTSOE: `${server.url}/api`,
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_MARKUP: '0.0182',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_VAT: '0.21',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_TAX: String(0.0916 * 1.21),
    },
    logger: linesLogger(lines),
  });
  const store = new PriceStore(ctx, ctx.logger, () => 0);
  ctx.prices = store;
  const service = runOutput(ctx, store);
  t.after(() => service.stop());
  return {
    ctx,
    clock,
    store,
    server,
    stateDir,
    lines,
    start: async () => {
      await service.start();
      await store.idle();
    },
    stop: () => service.stop(),
    file(day) {
      try {
        return readFileSync(join(stateDir, 'prices', `${day}.json`), 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

const tomorrowOf = (url: URL) => url.searchParams.get('periodStart') === '202611292300';

test('reason 999 for tomorrow at 13:20 CET: "not published yet", today kept, next try within 15 min, tomorrow null', async (t) => {
  const r = await rig(t, (url) =>
    tomorrowOf(url) ? { status: 200, body: acknowledgement() } : dayAnswer(url),
  );
  await r.start();
  assert.equal(r.server.requests.length, 2);
  const status = r.store.statusView();
  assert.match(status.status, /^not published yet/);
  assert.ok(Date.parse(status.next_fetch!) - AT_1320 <= 15 * 60_000, status.next_fetch!);
  assert.equal(r.ctx.services.get('prices')?.['status'], status.status);
  const today = r.store.slots('2026-11-29')!;
  assert.equal(today.length, 96);
  assert.ok(today.every((slot) => slot.spot !== null && slot.import !== null));
  const tomorrow = r.store.slots('2026-11-30')!;
  assert.equal(tomorrow.length, 96);
  assert.ok(tomorrow.every((slot) => slot.spot === null && slot.import === null && slot.export === null));
  assert.equal(r.file('2026-11-30'), undefined);
  // The retry: published now.
  r.server.answer = (url) => dayAnswer(url);
  await r.clock.advance(15 * 60_000);
  await r.store.idle();
  assert.equal(r.server.requests.length, 3);
  assert.ok(tomorrowOf(r.server.requests[2]!));
  assert.equal(r.store.statusView().status, 'ok');
  assert.ok(r.store.slots('2026-11-30')!.every((slot) => slot.spot !== null));
  // Then nothing until the next publication (13:00 CET of 2026-11-30), midnight aside.
  assert.equal(r.store.statusView().next_fetch, '2026-11-29T23:00:00.000Z');
});

test('restart at 14:30 with tomorrow fetched: no request, slots byte-identical', async (t) => {
  const at = Date.parse('2026-11-29T13:30:00Z');
  const first = await rig(t, (url) => dayAnswer(url), at);
  await first.start();
  assert.equal(first.server.requests.length, 2);
  const before = [first.file('2026-11-29'), first.file('2026-11-30')];
  assert.ok(before[0] && before[1]);
  await first.stop();
  const second = await rig(t, (url) => dayAnswer(url), at + 60_000, first.stateDir);
  await second.start();
  assert.equal(second.server.requests.length, 0);
  assert.deepEqual([second.file('2026-11-29'), second.file('2026-11-30')], before);
  assert.deepEqual(second.store.slots('2026-11-30'), first.store.slots('2026-11-30'));
});

test('HTTP 429: no request to the source for 10 minutes', async (t) => {
  let limited = true;
  const r = await rig(t, (url) => (limited ? { status: 429, body: '' } : dayAnswer(url)));
  await r.start();
  assert.equal(r.server.requests.length, 1);
  assert.match(r.store.statusView().status, /rate limited/);
  limited = false;
  const next = Date.parse(r.store.statusView().next_fetch!);
  assert.ok(next - AT_1320 >= 10 * 60_000, r.store.statusView().next_fetch!);
  await r.clock.advance(9 * 60_000 + 59_000);
  await r.store.idle();
  assert.equal(r.server.requests.length, 1);
  await r.clock.advance(next - r.clock.now());
  await r.store.idle();
  assert.equal(r.server.requests.length, 3);
});

test('the NL formula on stored quarters; the A44 day with 81.92 EUR/MWh prices 0.231981 EUR/kWh', async (t) => {
  const r = await rig(t, (url) => dayAnswer(url, () => 81.92));
  await r.start();
  const quarter = r.ctx.prices.quarterAt(Date.parse('2026-11-29T19:05:00Z'))!;
  assert.ok(Math.abs(quarter.import! - 0.231981) < 1e-6, String(quarter.import));
  assert.equal(quarter.export, 0.08192);
  const view = pricesView(r.store, r.ctx.config.config.services.costs, '2026-11-29', r.ctx.now())!;
  assert.equal(view.quarters, 96);
  assert.equal(view.current?.start, '2026-11-29T13:15:00+01:00');
  assert.equal(view.rank, 1);
  const file = JSON.parse(r.file('2026-11-29')!) as Record<string, unknown[] | string | number>;
  assert.equal(file['source'], 'entsoe');
  assert.equal(file['fetched_at'], new Date(AT_1320).toISOString());
  assert.equal(file['start'], '2026-11-28T23:00:00.000Z');
  assert.equal(file['quarters'], 96);
  assert.deepEqual(
    [(file['spot'] as number[])[0], (file['import'] as number[])[0], (file['export'] as number[])[0]],
    [81.92, 0.2319812, 0.08192],
  );
});

test('hostile answers never store a partial day and show as the status', async (t) => {
  const huge = `<Publication_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:3">${'<TimeSeries><Period><Point><position>1</position><price.amount>1</price.amount></Point></Period></TimeSeries>'.repeat(20_000)}</Publication_MarketDocument>`;
  const bodies: Array<[string, RegExp]> = [
    [huge, /refused: answer longer than/],
    [`${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}`, /refused: .*nested deeper/],
    [a44([{ periods: [fullPeriod(TODAY.start, TODAY.end)] }], 'urn:wrong'), /refused: .*namespace/],
    [
      a44([{ curve: 'A01', periods: [fullPeriod(TODAY.start, TODAY.end, (p) => (p === 50 ? NaN : p))] }]),
      /refused: .*not a number/,
    ],
    ['{"not": "xml"}', /refused/],
  ];
  for (const [body, status] of bodies) {
    const r = await rig(t, () => ({ status: 200, body }));
    await r.start();
    assert.match(r.store.statusView().status, status);
    assert.equal(r.file('2026-11-29'), undefined);
    assert.ok(r.store.slots('2026-11-29')!.every((slot) => slot.spot === null));
    assert.deepEqual(
      readdirSync(r.stateDir).filter((name) => name === 'prices'),
      [],
    );
    await r.stop();
  }
  void TOMORROW;
});

// docs/architecture.md#durability: a day file that fails its checks is moved aside and counted.
for (const [variant, damage] of [
  ['truncated', (text: string) => text.slice(0, text.length / 2)],
  ['of another version', (text: string) => JSON.stringify({ ...JSON.parse(text), version: 99 })],
  ['missing a field', (text: string) => JSON.stringify({ ...JSON.parse(text), spot: undefined })],
] as const) {
  test(`a day file ${variant} is moved aside as .corrupt-<time>, counted, and the day starts empty`, async (t) => {
    const at = Date.parse('2026-11-29T13:30:00Z');
    const first = await rig(t, (url) => dayAnswer(url), at);
    await first.start();
    await first.stop();
    const path = join(first.stateDir, 'prices', '2026-11-29.json');
    const damaged = damage(readFileSync(path, 'utf8'));
    assert.notEqual(damaged, readFileSync(path, 'utf8'));
    writeFileSync(path, damaged);
    const second = await rig(
      t,
      () => ({ status: 200, body: acknowledgement() }),
      at + 60_000,
      first.stateDir,
    );
    await second.start();
    const names = readdirSync(join(first.stateDir, 'prices'));
    const aside = names.filter((name) => name.startsWith('2026-11-29.json.corrupt-'));
    assert.equal(aside.length, 1, names.join(', '));
    assert.equal(readFileSync(join(first.stateDir, 'prices', aside[0]!), 'utf8'), damaged);
    assert.equal(second.file('2026-11-29'), undefined);
    assert.equal(second.store.quarterAt(at), undefined);
    assert.ok(second.store.quarterAt(Date.parse('2026-11-30T10:00:00Z')), 'the sound day is kept');
    assert.equal(second.ctx.refusals.get('state_file_corrupt'), 1);
    assert.ok(
      second.lines.some((line) => /2026-11-29\.json was corrupt/.test(line)),
      second.lines.join('\n'),
    );
  });
}
