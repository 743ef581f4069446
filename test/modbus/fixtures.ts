import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { silentLogger } from '../helpers/log-lines.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

/**
 * A synthetic three-phase reading with a distinct, non-round value for every quantity of the
 * table (line 2 exporting, so its signed current and power are negative).
 */
export function syntheticReading(receivedAt = Date.now()): Reading {
  return {
    receivedAt,
    protocol: 'DSMR',
    identity: {
      id: 'E0043007123456715',
      model: 'MT382-1000',
      logicalName: 'ISK5\\2M550T-1011',
      prefix: 'ISK',
    },
    tariff: 2,
    mbus: [],
    values: valuesOf({
      '1.7.0': [1.234, 'kW'],
      '2.7.0': [0.412, 'kW'],
      '21.7.0': [0.811, 'kW'],
      '41.7.0': [0, 'kW'],
      '61.7.0': [0.423, 'kW'],
      '22.7.0': [0, 'kW'],
      '42.7.0': [0.412, 'kW'],
      '62.7.0': [0, 'kW'],
      '3.7.0': [0.317, 'kvar'],
      '4.7.0': [0.052, 'kvar'],
      '23.7.0': [0.201, 'kvar'],
      '43.7.0': [0.116, 'kvar'],
      '63.7.0': [0, 'kvar'],
      '24.7.0': [0, 'kvar'],
      '44.7.0': [0, 'kvar'],
      '64.7.0': [0.052, 'kvar'],
      '9.7.0': [1.301, 'kVA'],
      '32.7.0': [230.1, 'V'],
      '52.7.0': [229.8, 'V'],
      '72.7.0': [231.4, 'V'],
      '31.7.0': [3.62, 'A'],
      '51.7.0': [1.87, 'A'],
      '71.7.0': [1.93, 'A'],
      '13.7.0': [0.987, ''],
      '1.8.1': [12345.678, 'kWh'],
      '1.8.2': [23456.789, 'kWh'],
      '2.8.1': [1234.567, 'kWh'],
      '2.8.2': [2345.678, 'kWh'],
      '3.8.1': [345.6, 'kvarh'],
      '3.8.2': [456.7, 'kvarh'],
      '4.8.1': [56.78, 'kvarh'],
      '4.8.2': [67.89, 'kvarh'],
      '5.8.0': [11.5, 'kvarh'],
      '1.6.0': [5.432, 'kW'],
    }),
  };
}

export interface TestContext {
  ctx: AppContext;
  stateDir: string;
  cleanup(): void;
}

export interface ContextOptions {
  env?: Record<string, string>;
  staleAfterMs?: number;
}

/** A real ConfigStore on a temp state directory, a real ReadingStore, a silent logger. */
export function makeContext(options: ContextOptions = {}): TestContext {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-modbus-'));
  const ctx = createAppContext({
    env: options.env ?? {},
    stateDir,
    staleAfterMs: options.staleAfterMs ?? 60_000,
    meterInterface: 'SIMULATOR',
    logger: silentLogger(),
    system: { id: 'B827EB12A4F0', model: 'WW_Go_1.2', firmware: '2.1.7', bootId: 'boot' },
  });
  const store = ctx.store;
  return {
    ctx,
    stateDir,
    cleanup() {
      store.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A loopback port that was free a moment ago (the settings allow 1..65535, not 0). */
export { freePort } from '../helpers/ports.js';

/** Environment that turns the slave on at `port`. */
export function modbusEnv(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(port),
    ...extra,
  };
}
