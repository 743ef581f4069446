import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { createHttpService, type HttpServerOptions, type HttpService } from '../../src/http/server.js';
import { Router } from '../../src/http/router.js';
import { valuesOf, type MeterInterface, type Reading } from '../../src/reading/reading.js';
import { linesLogger } from './log-lines.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

/**
 * A real HTTP server on 127.0.0.1 (free port) over a real context: config store on a temporary
 * state directory, reading store, capturing logger and a test clock. Any test that needs the API
 * (core routes, Modbus, MQTT, device routes ...) registers its routes through `routes` and talks
 * to `baseUrl` with a real client.
 */
export interface TestClock {
  now(): number;
  /** Moves the clock forward (nonce expiry, staleness) without waiting. */
  advance(ms: number): void;
  /**
   * Stops the clock where it is (it then moves only by `advance`) so second boundaries cannot
   * interfere. A stopped clock stays where it stopped.
   */
  freeze(): void;
}

export interface HttpContextOptions {
  /** METER_GATEWAY_* variables on top of the test defaults (port 0 on 127.0.0.1). */
  env?: Record<string, string>;
  routes?: (router: Router, ctx: AppContext) => void;
  server?: HttpServerOptions;
  meterInterface?: MeterInterface;
  staleAfterMs?: number;
  /**
   * The clock stopped from the start, before the boot time is taken from it: every reading of it
   * (time since boot, report times) is exact however long the start takes.
   */
  clockFrozen?: boolean;
}

export interface HttpTestContext {
  ctx: AppContext;
  router: Router;
  service: HttpService;
  baseUrl: string;
  port: number;
  clock: TestClock;
  /** Every log line written so far, as JSON text (message plus metadata). */
  logLines: string[];
  stateDir: string;
  close(): Promise<void>;
}

export function testClock(start = Date.now()): TestClock {
  let offset = start - Date.now();
  let frozenAt: number | undefined;
  return {
    now: () => frozenAt ?? Date.now() + offset,
    advance: (ms) => {
      offset += ms;
      if (frozenAt !== undefined) frozenAt += ms;
    },
    freeze: () => {
      frozenAt ??= Date.now() + offset;
    },
  };
}

export async function startHttpContext(options: HttpContextOptions = {}): Promise<HttpTestContext> {
  const stateDir = mkdtempSync(join(tmpdir(), 'meter-gateway-http-'));
  const clock = testClock();
  if (options.clockFrozen === true) clock.freeze();
  const logLines: string[] = [];
  const ctx = createAppContext({
    env: { METER_GATEWAY_HTTP_HOST: '127.0.0.1', METER_GATEWAY_HTTP_PORT: '0', ...options.env },
    stateDir,
    now: clock.now,
    staleAfterMs: options.staleAfterMs ?? 60_000,
    meterInterface: options.meterInterface ?? 'SIMULATOR',
    logger: linesLogger(logLines),
    system: {
      id: 'A1B2C3D4E5F6',
      firmware: '0.1.0-test',
      bootId: '00000000-0000-4000-8000-000000000000',
      bootTime: clock.now() - 3_600_000,
    },
  });
  const router = new Router();
  options.routes?.(router, ctx);
  const service = createHttpService(ctx, router, options.server);
  try {
    await service.start();
  } catch (error) {
    ctx.store.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const port = service.address()!.port;
  return {
    ctx,
    router,
    service,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    clock,
    logLines,
    stateDir,
    async close() {
      await service.stop();
      ctx.store.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * A three-phase DSMR-like reading with tariff registers, per-phase values and one gas channel,
 * every value in canonical units. `step` shifts the values so consecutive readings differ.
 */
export function syntheticReading(receivedAt: number, step = 0): Reading {
  return {
    receivedAt,
    protocol: 'DSMR',
    identity: {
      prefix: 'ISK',
      vendor: 'Iskraemeco',
      model: 'AM550-TD2',
      id: 'E0047000123456789',
      protocolVersion: '50',
    },
    values: valuesOf({
      '1.8.1': [9811.204 + step / 1000, 'kWh'],
      '1.8.2': [8923.308, 'kWh'],
      '2.8.1': [1811.42, 'kWh'],
      '2.8.2': [2291.457, 'kWh'],
      '1.7.0': [2.412 + step / 1000, 'kW'],
      '2.7.0': [0, 'kW'],
      '21.7.0': [0.962, 'kW'],
      '41.7.0': [0.703, 'kW'],
      '61.7.0': [0.747, 'kW'],
      '22.7.0': [0, 'kW'],
      '42.7.0': [0, 'kW'],
      '62.7.0': [0, 'kW'],
      '32.7.0': [231.4, 'V'],
      '52.7.0': [229.8, 'V'],
      '72.7.0': [232.1, 'V'],
      '31.7.0': [4.31, 'A'],
      '51.7.0': [3.12, 'A'],
      '71.7.0': [3.24, 'A'],
    }),
    tariff: 2,
    mbus: [
      {
        bus: 1,
        meterId: 'G0058000987654321',
        deviceType: 3,
        dateTime: '2026-11-21T11:55:00+01:00',
        cumulative: 4521.338,
        unit: 'm3',
      },
    ],
  };
}
