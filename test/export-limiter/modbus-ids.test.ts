// The export limiter's values in a custom whatwatt Modbus layout, read over TCP with modbus-serial's
// client from the real slave: equal to the limiter's status while it runs, NaN (floats) and 0
// (integers) while its meter is stale or it is disabled, mode, decision and state as codes
// (docs/architecture.md#export-limiter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExportLimiter, type LimiterStatus } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import {
  LIMITER_DECISION_CODES,
  LIMITER_MODE_CODES,
  LIMITER_STATE_CODES,
} from '../../src/modbus/limiter-registers.js';
import { createModbusService, type ModbusService } from '../../src/modbus/service.js';
import { runOutput } from '../../src/output-runner.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { waitFor } from '../helpers/wait.js';
import { closeClient, connectClient, readWords } from '../modbus/clients.js';
import { freePort, modbusEnv } from '../modbus/fixtures.js';

const f32 = (value: number | undefined): string => {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatBE(value ?? NaN);
  return bytes.toString('hex');
};
const i32 = (value: number | undefined): string =>
  value === undefined ? '00000000' : (Math.round(value) >>> 0).toString(16).padStart(8, '0');
const i16 = (value: number): string => value.toString(16).padStart(4, '0');

const LAYOUT = [
  {
    start_address: 100,
    word_order: 'msw',
    registers: [
      { id: 'limiter.target_kw', type: 'float', scaler: 0 },
      { id: 'limiter.grid_kw', type: 'float', scaler: 0 },
      { id: 'limiter.limit_kw', type: 'float', scaler: 0 },
      { id: 'limiter.output_kw', type: 'float', scaler: 0 },
      { id: 'limiter.mode', type: 'short', scaler: 0 },
      { id: 'limiter.decision', type: 'short', scaler: 0 },
      { id: 'limiter.state', type: 'short', scaler: 0 },
      { id: 'limiter.grid_kw', type: 'int', scaler: 3 },
      { id: 'limiter.limit_kw', type: 'int', scaler: 3 },
    ],
  },
];
const WORDS = 4 * 2 + 3 + 2 * 2;

/** The layout's bytes for a status (disabled or stale: NaN / 0 and the codes of `off`). */
function expected(status: LimiterStatus): string {
  const live = status.enabled && status.state !== 'stale';
  const sum = (pick: (inverter: LimiterStatus['inverters'][number]) => number | null) => {
    const known = status.inverters.map(pick).filter((value) => value !== null);
    return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0);
  };
  const grid = live && status.grid_w !== null ? status.grid_w : undefined;
  const limit = live ? sum((inverter) => inverter.commanded_w) : undefined;
  const output = live ? sum((inverter) => inverter.reported_w) : undefined;
  return (
    f32(live ? status.target_w / 1000 : undefined) +
    f32(grid === undefined ? undefined : grid / 1000) +
    f32(limit === undefined ? undefined : limit / 1000) +
    f32(output === undefined ? undefined : output / 1000) +
    i16(status.enabled ? LIMITER_MODE_CODES[status.mode] : 0) +
    i16(status.enabled ? LIMITER_DECISION_CODES[status.decision] : 0) +
    i16(status.enabled ? LIMITER_STATE_CODES[status.state] : 0) +
    i32(grid) +
    i32(limit)
  );
}

test('limiter.* layout ids over Modbus TCP: the limiter status byte for byte, NaN / 0 while stale or disabled, codes for mode, decision and state', async (t) => {
  const port = await freePort();
  let limiter: ExportLimiter | undefined;
  let modbus: ModbusService | undefined;
  const h = await startHttpContext({
    staleAfterMs: 3_600_000,
    env: { ...modbusEnv(port), METER_GATEWAY_METER_TIMEOUT: '3600' },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'));
      registerExportLimiterRoutes(router, ctx, limiter);
      modbus = createModbusService(ctx, { host: '127.0.0.1', limiter });
    },
  });
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  const outputs = [runOutput(h.ctx, limiter!), runOutput(h.ctx, modbus!)];
  for (const output of outputs) await output.start();
  const client = await connectClient(port);
  t.after(async () => {
    await closeClient(client);
    for (const output of outputs.reverse()) await output.stop();
    await inverter.close();
    await h.close();
  });
  assert.ok(h.ctx.config.apply(new Map([['modbus.layout', LAYOUT]])).ok);
  const read = async () => (await readWords(client, 100, WORDS)).toString('hex');
  // Disabled: every power NaN / 0, every code 0.
  assert.equal(await read(), expected(limiter!.status()));
  assert.equal((await read()).slice(0, 8), '7fc00000', 'NaN for a float');

  const applied = h.ctx.config.apply(
    new Map<string, unknown>([
      ['services.export_limiter.enabled', true],
      ['services.export_limiter.target_w', -100],
      ['services.export_limiter.inverters', [{ id: 'pv1', source: inverter.source, profile: 'sunspec' }]],
    ]),
  );
  assert.ok(applied.ok);
  const feed = () =>
    h.ctx.store.ingest({
      receivedAt: h.ctx.clock.now(),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({ '1.7.0': [0, 'kW'], '2.7.0': [2.2, 'kW'] }),
      mbus: [],
    });
  feed();
  await waitFor(
    'a limit held',
    () => limiter!.status(),
    (status) => status.state === 'limiting',
  );
  const limiting = await waitFor(
    'the registers of the limiting status',
    async () => ({ bytes: await read(), status: limiter!.status() }),
    ({ bytes, status }) => bytes === expected(status),
  );
  assert.equal(limiting.status.grid_w, -2200);
  assert.equal(limiting.bytes.slice(8, 16), f32(-2.2), 'grid power in kW, import positive');
  assert.equal(limiting.bytes.slice(0, 8), f32(-0.1), 'target in kW');
  assert.equal(limiting.bytes.slice(32, 44), i16(1) + i16(1) + i16(2), 'zero_export, zero_export, limiting');
  assert.equal(limiting.bytes.slice(44, 52), i32(-2200), 'grid power in W with scaler 3');
  assert.equal(limiting.bytes.slice(52, 60), i32(limiting.status.inverters[0]!.commanded_w!));

  // No reading for longer than stale_after_s (30 s): powers NaN / 0, state stale.
  h.clock.advance(40_000);
  const stale = await waitFor(
    'the stale registers',
    async () => ({ bytes: await read(), status: limiter!.status() }),
    ({ bytes, status }) => status.state === 'stale' && bytes === expected(status),
  );
  assert.equal(stale.bytes.slice(8, 16), '7fc00000');
  assert.equal(stale.bytes.slice(44, 52), '00000000');
  assert.equal(stale.bytes.slice(40, 44), i16(LIMITER_STATE_CODES.stale));

  // Disabled again: everything back to NaN / 0.
  assert.ok(h.ctx.config.apply(new Map([['services.export_limiter.enabled', false]])).ok);
  const off = await waitFor(
    'the disabled registers',
    async () => ({ bytes: await read(), status: limiter!.status() }),
    ({ bytes, status }) => !status.enabled && bytes === expected(status),
  );
  assert.equal(off.bytes.slice(32, 44), '000000000000', 'every code 0');
});
