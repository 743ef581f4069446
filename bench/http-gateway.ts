/**
 * A gateway HTTP API for the benchmarks: the real server and core routes over a real context on a
 * loopback port, in a temporary state directory. Fed either by the simulator meter (the meter
 * input with DSMR telegrams, as the daemon runs it) or by the caller (`ingest`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../src/config/config-store.js';
import { createAppContext, type AppContext } from '../src/context.js';
import { createHttpService, registerCoreRoutes, type CoreRoutes } from '../src/http/server.js';
import { Router } from '../src/http/router.js';
import { componentLogger, createLogger } from '../src/log.js';
import { createMeterInput } from '../src/meter/meter-input.js';
import { runOutput } from '../src/output-runner.js';
import { valuesOf, type Reading } from '../src/reading/reading.js';
import { registerConfigFormats } from '../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

export interface BenchGatewayOptions {
  port: number;
  /** Turns system.protection on with this password. */
  password?: string;
  /** 'simulator': the meter input with the simulator source; 'manual': only `ingest`. */
  feed: 'simulator' | 'manual';
  simulatorIntervalS?: number;
  liveMaxClients?: number;
}

export interface BenchGateway {
  ctx: AppContext;
  core: CoreRoutes;
  port: number;
  close(): Promise<void>;
}

export async function startBenchGateway(options: BenchGatewayOptions): Promise<BenchGateway> {
  const stateDir = mkdtempSync(join(tmpdir(), 'meter-gateway-bench-'));
  const config = ConfigStore.load({
    env: {
      METER_GATEWAY_HTTP_HOST: '127.0.0.1',
      METER_GATEWAY_HTTP_PORT: String(options.port),
      METER_GATEWAY_HTTP_LIVE_MAX_CLIENTS: String(options.liveMaxClients ?? 256),
      METER_GATEWAY_METER_SIMULATOR_INTERVAL: String(options.simulatorIntervalS ?? 1),
      METER_GATEWAY_LOG_LEVEL: 'warn',
    },
    stateDir,
  });
  if (options.password !== undefined) {
    const applied = config.apply(
      new Map<string, unknown>([
        ['system.protection', true],
        ['system.password', options.password],
      ]),
    );
    if (!applied.ok) throw new Error(`cannot set the password: ${JSON.stringify(applied.issues)}`);
  }
  const logger = createLogger('warn');
  const ctx = createAppContext({
    config,
    logger,
    staleAfterMs: 60_000,
    meterInterface: 'SIMULATOR',
    system: { id: 'A1B2C3D4E5F6' },
  });
  const router = new Router();
  const core = registerCoreRoutes(router, ctx);
  const meter =
    options.feed === 'simulator'
      ? runOutput(ctx, createMeterInput(ctx, componentLogger(logger, 'meter')))
      : undefined;
  const http = createHttpService(ctx, router);
  if (meter) {
    const first = new Promise<void>((resolve) => ctx.store.once('reading', () => resolve()));
    await meter.start();
    await first;
  }
  await http.start();
  return {
    ctx,
    core,
    port: http.address()!.port,
    async close() {
      await http.stop();
      await meter?.stop();
      ctx.store.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A three-phase reading whose energy register 1.8.1 carries `sequence` (the fan-out bench matches on it). */
export function sequencedReading(sequence: number, receivedAt: number): Reading {
  return {
    receivedAt,
    protocol: 'DSMR',
    identity: { prefix: 'ISK', vendor: 'Iskraemeco', model: 'AM550-TD2', id: 'E0047000123456789' },
    values: valuesOf({
      '1.8.1': [sequence, 'kWh'],
      '1.8.2': [8923.308, 'kWh'],
      '2.8.1': [1811.42, 'kWh'],
      '2.8.2': [2291.457, 'kWh'],
      '1.7.0': [2.412, 'kW'],
      '2.7.0': [0, 'kW'],
      '21.7.0': [0.962, 'kW'],
      '41.7.0': [0.703, 'kW'],
      '61.7.0': [0.747, 'kW'],
      '32.7.0': [231.4, 'V'],
      '52.7.0': [229.8, 'V'],
      '72.7.0': [232.1, 'V'],
      '31.7.0': [4.31, 'A'],
      '51.7.0': [3.12, 'A'],
      '71.7.0': [3.24, 'A'],
    }),
    tariff: 2,
    mbus: [
      { bus: 1, meterId: 'G0058000987654321', dateTime: '2026-11-21T11:55:00+01:00', cumulative: 4521.338 },
    ],
  };
}
