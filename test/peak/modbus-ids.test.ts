// The peak guard's values in a custom whatwatt Modbus layout, read byte for byte over TCP with
// modbus-serial's client from the real slave: equal to the guard's snapshot while it runs, NaN
// (floats) and 0 (integers) while it is stale or off, its state as a code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { componentLogger } from '../../src/log.js';
import { PEAK_STATE_CODES } from '../../src/modbus/peak-registers.js';
import { createModbusService, type ModbusService } from '../../src/modbus/service.js';
import { runOutput } from '../../src/output-runner.js';
import type { PeakSnapshot } from '../../src/peak/engine-types.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { closeClient, connectClient, readWords } from '../modbus/clients.js';
import { freePort, modbusEnv } from '../modbus/fixtures.js';
import { importFeeder } from './import-feed.js';

process.env.TZ = 'Europe/Brussels';

const f32 = (value: number): string => {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatBE(value);
  return bytes.toString('hex');
};
const f64lsw = (value: number): string => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return (bytes.toString('hex').match(/.{4}/g) ?? []).reverse().join('');
};
const i32 = (value: number): string => (Math.round(value) >>> 0).toString(16).padStart(8, '0');
const i16 = (value: number): string => value.toString(16).padStart(4, '0');

const FLOATS = ['running_kw', 'predicted_kw', 'allowed_kw', 'headroom_kw', 'month_kw', 'rolling_kw'] as const;
const LAYOUT = [
  {
    start_address: 200,
    word_order: 'msw',
    registers: [
      ...FLOATS.map((key) => ({ id: `peak.${key}`, type: 'float', scaler: 0 })),
      { id: 'peak.state', type: 'short', scaler: 0 },
      { id: 'peak.running_kw', type: 'int', scaler: 3 },
      { id: 'peak.headroom_kw', type: 'int', scaler: 3 },
    ],
  },
  {
    start_address: 300,
    word_order: 'lsw',
    registers: [{ id: 'peak.predicted_kw', type: 'double', scaler: 0 }],
  },
];

/** The layout's bytes for a snapshot (undefined values: NaN and 0, as the encoder writes them). */
function expected(
  snapshot: PeakSnapshot | { state: 'off' },
  running: boolean,
): { at200: string; at300: string } {
  const live = running && 'window' in snapshot && snapshot.state !== 'stale' ? snapshot : undefined;
  const q = live?.quantities;
  const values: Record<(typeof FLOATS)[number], number | undefined> = {
    running_kw: q?.running_kw,
    predicted_kw: q?.predicted_kw,
    allowed_kw: q?.allowed_kw ?? undefined,
    headroom_kw: q?.headroom_kw ?? undefined,
    month_kw: live?.month_peak?.kw,
    rolling_kw: live?.rolling.kw,
  };
  const float = (value: number | undefined) => f32(value ?? NaN);
  const int = (value: number | undefined) => (value === undefined ? '00000000' : i32(value * 1000));
  return {
    at200:
      FLOATS.map((key) => float(values[key])).join('') +
      i16(PEAK_STATE_CODES[snapshot.state]) +
      int(values.running_kw) +
      int(values.headroom_kw),
    // register = value × 10^scaler rounded to 15 significant digits (docs/architecture.md#units).
    at300: f64lsw(values.predicted_kw === undefined ? NaN : Number(values.predicted_kw.toPrecision(15))),
  };
}

test('peak.* layout ids over Modbus TCP: the guard snapshot byte for byte, NaN / 0 while stale or off, the state code', async (t) => {
  const port = await freePort();
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  let modbus: ModbusService | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    staleAfterMs: 3_600_000,
    env: {
      ...modbusEnv(port),
      METER_GATEWAY_METER_TIMEOUT: '10',
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard);
      modbus = createModbusService(ctx, { host: '127.0.0.1', peak: guard });
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!), runOutput(h.ctx, modbus!)];
  for (const output of outputs) await output.start();
  const client = await connectClient(port);
  t.after(async () => {
    await closeClient(client);
    for (const output of outputs.reverse()) await output.stop();
    await h.close();
  });
  assert.ok(h.ctx.config.apply(new Map([['modbus.layout', LAYOUT]])).ok);
  const feed = importFeeder(h, 1000);
  const read = async () => ({
    at200: (await readWords(client, 200, 2 * FLOATS.length + 5)).toString('hex'),
    at300: (await readWords(client, 300, 4)).toString('hex'),
  });

  // The Belgian case: 3.0 kW from the quarter's start for 5 minutes, then 7.0 kW to xx:08.
  h.clock.advance(900_000 - (h.clock.now() % 900_000) - 1000);
  feed(3, 301);
  feed(7, 180);
  const running = guard!.snapshot() as PeakSnapshot;
  // No stage to shed: the predicted 5.667 kW over L = 4 leaves the guard over its limit.
  assert.ok(['warning', 'over_limit'].includes(running.state), running.state);
  const view = (await send(h.baseUrl, 'GET', '/api/v1/peak')).json();
  assert.equal(Math.round(running.quantities!.running_kw * 1000) / 1000, view.running_kw);
  assert.equal(view.running_kw, 2.4);
  assert.deepEqual(await read(), expected(running, true));
  assert.equal((await read()).at200.slice(48, 52), i16(PEAK_STATE_CODES[running.state]));

  // No reading for more than meter.timeout: the guard's clock makes it stale; the values go NaN / 0.
  h.clock.advance(15_000);
  guard!.tick();
  const stale = guard!.snapshot();
  assert.equal(stale.state, 'stale');
  await waitFor('the stale registers', read, (bytes) => bytes.at200 === expected(stale, true).at200);
  assert.deepEqual(await read(), expected(stale, true));
  assert.equal(expected(stale, true).at200.slice(0, 8), '7fc00000', 'NaN for a float');

  // Switched off: NaN / 0 and state 0.
  assert.ok(h.ctx.config.apply(new Map([['services.peak_guard.enabled', false]])).ok);
  await waitFor(
    'the guard off',
    () => guard!.snapshot().state,
    (state) => state === 'off',
  );
  feed(3, 2);
  assert.deepEqual(await read(), expected({ state: 'off' }, false));
});
