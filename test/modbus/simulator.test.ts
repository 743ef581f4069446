import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { registerReportRoutes } from '../../src/http/routes/report.js';
import { createMeterInput } from '../../src/meter/meter-input.js';
import { DEFAULT_LAYOUT, toDetailed, type DetailedSet } from '../../src/modbus/layout.js';
import { registerModbusRoutes } from '../../src/http/routes/modbus.js';
import { createModbusService } from '../../src/modbus/service.js';
import { QUANTITY_BY_OBIS } from '../../src/reading/quantities.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import {
  closeClient,
  connectClient,
  decodeRegister,
  mbpoll,
  mbpollValues,
  readWords,
  type ModbusClient,
} from './clients.js';
import { freePort, modbusEnv } from './fixtures.js';
import { runOutput } from '../../src/output-runner.js';

type Json = Record<string, unknown>;

function at(report: Json, path: readonly string[]): number | undefined {
  let node: unknown = report;
  for (const key of path) node = (node as Json | undefined)?.[key];
  return typeof node === 'number' ? node : undefined;
}

/**
 * What a default-layout register must hold according to /api/v1/report (the device's register identifier
 * table).
 */
function fromReport(report: Json, id: string): number | undefined {
  if (id === '0') return 0;
  if (id === '96.14.0') return at(report, ['tariff']);
  const line = /\.(l[123])$/.exec(id)?.[1] ?? 'total';
  const power = (kind: string) => {
    const positive = at(report, ['instantaneous_power', kind, 'positive', line]);
    const negative = at(report, ['instantaneous_power', kind, 'negative', line]);
    return positive === undefined && negative === undefined ? undefined : (positive ?? 0) - (negative ?? 0);
  };
  if (id.startsWith('power.active')) return power('active');
  if (id.startsWith('power.reactive')) return power('reactive');
  if (id.startsWith('current.')) {
    const magnitude = at(report, ['current', line]);
    const net = power('active');
    return magnitude === undefined ? undefined : net !== undefined && net < 0 ? -magnitude : magnitude;
  }
  const quantity = QUANTITY_BY_OBIS.get(id);
  assert.ok(quantity, `no quantity for ${id}`);
  return at(report, quantity.reportPath);
}

async function readDefaultSets(client: ModbusClient, sets: DetailedSet[]): Promise<Buffer[]> {
  const images: Buffer[] = [];
  for (const set of sets) images.push(await readWords(client, set.start_address as number, set.size));
  return images;
}

test(
  'while the simulator runs, the default layout reads /api/v1/report values x 10^scaler',
  { timeout: 60_000 },
  async (t) => {
    const port = await freePort();
    const api = await startHttpContext({
      env: {
        ...modbusEnv(port),
        METER_GATEWAY_METER_SOURCE: 'simulator',
        METER_GATEWAY_METER_SIMULATOR_INTERVAL: '1',
      },
      routes: (router, ctx) => {
        registerReportRoutes(router, ctx);
        registerModbusRoutes(router, ctx);
      },
    });
    t.after(() => api.close());
    const meter = createMeterInput(api.ctx, api.ctx.logger);
    const meterOutput = runOutput(api.ctx, meter);
    const modbus = createModbusService(api.ctx, { host: '127.0.0.1' });
    const modbusOutput = runOutput(api.ctx, modbus);
    await modbusOutput.start();
    t.after(() => modbusOutput.stop());
    await meterOutput.start();
    t.after(() => meterOutput.stop());
    await once(api.ctx.store, 'reading');
    const client = await connectClient(port);
    t.after(() => closeClient(client));

    const sets = toDetailed(DEFAULT_LAYOUT, 'dec');
    // Report and registers must come from the same reading: retry when one arrived in between.
    let report: Json | undefined;
    let images: Buffer[] = [];
    for (let attempt = 0; attempt < 20 && report === undefined; attempt++) {
      const id = api.ctx.store.reportId;
      const body = (await (await fetch(`${api.baseUrl}/api/v1/report`)).json()) as { report: Json };
      images = await readDefaultSets(client, sets);
      if (body.report.id === id && api.ctx.store.reportId === id) report = body.report;
    }
    assert.ok(report, 'no consistent snapshot');
    let numbers = 0;
    sets.forEach((set, i) => {
      for (const register of set.registers) {
        const value = decodeRegister(
          images[i]!,
          (register.address as number) - (set.start_address as number),
          register.type!,
          'msw',
        );
        const expected = fromReport(report, register.id);
        if (expected === undefined) {
          assert.ok(
            register.type === 'float' || register.type === 'double' ? Number.isNaN(value) : value === 0,
            `${register.id}: ${value}`,
          );
          continue;
        }
        const scaled = expected * 10 ** register.scaler!;
        const tolerance = register.type === 'float' ? 2 ** -23 : register.type === 'double' ? 1e-15 : 0;
        assert.ok(
          Math.abs(value - scaled) <= Math.abs(scaled) * tolerance,
          `${register.id}: ${value} != ${scaled}`,
        );
        if (register.id !== '0') numbers += 1;
      }
    });
    // The simulator sends voltages, currents, active powers, energies and the tariff (19 registers).
    assert.ok(numbers >= 15, `only ${numbers} registers had report values`);

    if (!requireCommand(t, 'mbpoll')) return;
    const voltages = mbpollValues(
      (await mbpoll(['-t', '3:float', '-B', '-r', '2', '-c', '3', '127.0.0.1', '-p', String(port)])).stdout,
    );
    for (const [reference, line] of [
      [2, 'l1'],
      [4, 'l2'],
      [6, 'l3'],
    ] as const) {
      const got = voltages.get(reference);
      assert.ok(got !== undefined && got > 200 && got < 260, `voltage ${line}: ${got}`);
    }
  },
);
