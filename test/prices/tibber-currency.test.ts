// Tibber on a loopback GraphQL server and prices in another currency than the contract's, through
// the price store on the virtual clock. The answer has the shape of Tibber's API reference
// (developer.tibber.com: viewer.homes[].currentSubscription.priceInfo with `today` and `tomorrow`
// lists of Price {total, energy, tax, startsAt, currency}, per kWh): `energy` is the spot part,
// `total` what Tibber bills.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { runOutput } from '../../src/output-runner.js';
import { PriceStore } from '../../src/prices/price-store.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

process.env.TZ = 'Europe/Brussels';
registerConfigFormats();

/** 2026-11-29 10:00 CET: today only (tomorrow is asked for from 13:00 CET). */
const AT_1000 = Date.parse('2026-11-29T09:00:00Z');
const DAY_START = Date.parse('2026-11-28T23:00:00Z');
const QUARTER = 900_000;
const TOKEN = 'tibber-test-token';

/** Quarter i of the day: energy 0.05 + i/1000 per kWh, total = energy + 0.2. */
const energyOf = (i: number) => Math.round((0.05 + i / 1000) * 1e6) / 1e6;
const totalOf = (i: number) => Math.round((energyOf(i) + 0.2) * 1e6) / 1e6;

/** Local ISO time with the CET offset, as Tibber writes `startsAt`. */
const cet = (ms: number) => `${new Date(ms + 3_600_000).toISOString().slice(0, 23)}+01:00`;

function tibberBody(currency: string): string {
  const today = Array.from({ length: 96 }, (_, i) => ({
    total: totalOf(i),
    energy: energyOf(i),
    tax: Math.round((totalOf(i) - energyOf(i)) * 1e6) / 1e6,
    startsAt: cet(DAY_START + i * QUARTER),
    currency,
  }));
  return JSON.stringify({
    data: { viewer: { homes: [{ currentSubscription: { priceInfo: { today, tomorrow: [] } } }] } },
  });
}

interface Seen {
  method: string;
  authorization: string | undefined;
  body: string;
}

async function tibberServer(t: TestContext, currency: string): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(tibberBody(currency));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1-beta/gql`, seen };
}

interface Rig {
  ctx: AppContext;
  store: PriceStore;
  seen: Seen[];
  lines: string[];
  file(): string | undefined;
}

async function rig(
  t: TestContext,
  options: { currency: string; ownCharges: boolean; rate?: number },
): Promise<Rig> {
  const server = await tibberServer(t, options.currency);
  const stateDir = tempDir('mg-tibber-', t);
  const lines: string[] = [];
  const ctx = createAppContext({
    clock: new VirtualClock(AT_1000),
    stateDir,
    env: {
      METER_GATEWAY_SERVICES_COSTS_CURRENCY: 'EUR',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'tibber',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_TOKEN: TOKEN,
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_TIBBER: server.url,
      METER_GATEWAY_SERVICES_COSTS_SOURCE_OWN_CHARGES: String(options.ownCharges),
      METER_GATEWAY_SERVICES_COSTS_SOURCE_RATE: String(options.rate ?? 0),
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_MARKUP: '0.02',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_VAT: '0.21',
      METER_GATEWAY_SERVICES_COSTS_FORMULA_TAX: '0.1',
    },
    logger: linesLogger(lines),
  });
  const store = new PriceStore(ctx, ctx.logger, () => 0);
  ctx.prices = store;
  const service = runOutput(ctx, store);
  t.after(() => service.stop());
  await service.start();
  await store.idle();
  return {
    ctx,
    store,
    seen: server.seen,
    lines,
    file() {
      try {
        return readFileSync(join(stateDir, 'prices', '2026-11-29.json'), 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

const near = (actual: number | null | undefined, wanted: number, what: string) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - wanted) < 1e-9,
    `${what}: ${actual} is not ${wanted}`,
  );

test('Tibber with own charges: the GraphQL request with the token; import recomputed from energy with the formula', async (t) => {
  const r = await rig(t, { currency: 'EUR', ownCharges: true });
  assert.equal(r.seen.length, 1);
  assert.equal(r.seen[0]!.method, 'POST');
  assert.equal(r.seen[0]!.authorization, `Bearer ${TOKEN}`);
  const query = (JSON.parse(r.seen[0]!.body) as { query: string }).query;
  assert.match(query, /priceInfo\(resolution: QUARTER_HOURLY\)/);
  assert.match(query, /today\{[^}]*energy[^}]*startsAt/);
  assert.equal(r.store.statusView().status, 'ok');
  const slots = r.store.slots('2026-11-29')!;
  assert.equal(slots.length, 96);
  for (const i of [0, 40, 95]) {
    near(slots[i]!.spot, energyOf(i) * 1000, `spot ${i}`);
    near(slots[i]!.import, (energyOf(i) + 0.02) * 1.21 + 0.1, `import ${i}`);
  }
  near(r.ctx.prices.quarterAt(AT_1000)?.import, (energyOf(40) + 0.02) * 1.21 + 0.1, 'quarter at 10:00');
});

test("Tibber without own charges: import is Tibber's total", async (t) => {
  const r = await rig(t, { currency: 'EUR', ownCharges: false });
  const slots = r.store.slots('2026-11-29')!;
  for (const i of [0, 40, 95]) near(slots[i]!.import, totalOf(i), `import ${i}`);
  const stored = JSON.parse(r.file()!) as { total: number[]; import: number[] };
  near(stored.total[40], totalOf(40), 'total in the day file');
  near(stored.import[40], totalOf(40), 'import in the day file');
});

test('another currency without a rate: the source is refused with a clear status, nothing stored', async (t) => {
  const r = await rig(t, { currency: 'SEK', ownCharges: true });
  const status = r.store.statusView();
  assert.match(status.status, /^refused: prices in SEK, the contract is in EUR and no rate is set/);
  assert.equal(status.failures, 1);
  assert.equal(r.ctx.services.get('prices')?.['status'], status.status);
  assert.equal(r.file(), undefined);
  assert.equal(r.ctx.prices.quarterAt(AT_1000), undefined);
  assert.ok(r.lines.some((line) => line.includes('prices in SEK')));
});

test('another currency with a rate: converted before the formula, and the total converted', async (t) => {
  const rate = 0.087;
  const own = await rig(t, { currency: 'SEK', ownCharges: true, rate });
  assert.equal(own.store.statusView().status, 'ok');
  const slots = own.store.slots('2026-11-29')!;
  // The raw spot stays in the source's currency; the prices are in the contract's.
  near(slots[40]!.spot, energyOf(40) * 1000, 'spot in SEK per MWh');
  near(slots[40]!.import, (energyOf(40) * rate + 0.02) * 1.21 + 0.1, 'import in EUR');
  near(slots[40]!.export, energyOf(40) * rate, 'export in EUR');
  const total = await rig(t, { currency: 'SEK', ownCharges: false, rate });
  near(total.store.slots('2026-11-29')![40]!.import, totalOf(40) * rate, 'total in EUR');
});
