import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext, type ServiceStatus } from '../../src/context.js';
import type { Clock } from '../../src/clock.js';
import { valuesOf, type MbusReading, type Reading } from '../../src/reading/reading.js';
import { linesLogger } from '../helpers/log-lines.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();
import { waitFor } from '../helpers/wait.js';

export const SYSTEM_ID = 'ECC9FF5C7F14';

export interface MqttTestContext {
  ctx: AppContext;
  logLines: string[];
  stateDir: string;
  close(): void;
}

/**
 * A real context for MQTT tests: config store from METER_GATEWAY_* variables on a temporary state
 * directory, a reading store, a logger that keeps its lines.
 */
export function mqttTestContext(
  env: Record<string, string>,
  options: { staleAfterMs?: number; stateDir?: string; clock?: Clock } = {},
): MqttTestContext {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'meter-gateway-mqtt-'));
  const logLines: string[] = [];
  const ctx = createAppContext({
    env: { METER_GATEWAY_HTTP_HOST: '127.0.0.1', METER_GATEWAY_HTTP_PORT: '8080', ...env },
    stateDir,
    staleAfterMs: options.staleAfterMs ?? 60_000,
    meterInterface: 'P1',
    logger: linesLogger(logLines),
    system: {
      id: SYSTEM_ID,
      model: 'meter-gateway-test',
      firmware: '9.8.7',
      bootId: '00000000-0000-4000-8000-000000000000',
    },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    ctx,
    logLines,
    stateDir,
    close() {
      ctx.store.close();
      if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Environment of an enabled publisher on `url` with a report every second. */
export function publisherEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    METER_GATEWAY_MQTT_ENABLE: 'true',
    METER_GATEWAY_MQTT_URL: url,
    METER_GATEWAY_SERVICES_REPORT_INTERVAL: '1',
    // A state message per reading, so tests see each one; the rate has its own test.
    METER_GATEWAY_MQTT_DISCOVERY_STATE_INTERVAL: '0',
    ...extra,
  };
}

/** Decimal values as a meter sends them (no binary noise from the test's arithmetic). */
const exact = (value: number): number => Number(value.toFixed(6));

/** A DSMR-like reading: tariff energy registers (totals are derived), power, voltage, current, gas. */
export function dsmrReading(
  receivedAt: number,
  step = 0,
  extra: Record<string, [number, string]> = {},
  mbus?: MbusReading[],
): Reading {
  return {
    receivedAt,
    protocol: 'DSMR',
    identity: { prefix: 'ISK', model: 'AM550', id: 'E0047000123456789', protocolVersion: '50' },
    values: valuesOf({
      '1.8.1': [exact(9811.204 + step), 'kWh'],
      '1.8.2': [8923.308, 'kWh'],
      '2.8.1': [1811.42, 'kWh'],
      '2.8.2': [2291.457, 'kWh'],
      '1.7.0': [exact(2.412 + step), 'kW'],
      '2.7.0': [0, 'kW'],
      '32.7.0': [231.4, 'V'],
      '31.7.0': [4, 'A'],
      ...extra,
    }),
    tariff: 2,
    mbus: mbus ?? [{ bus: 1, meterId: 'G0058000987654321', deviceType: 3, cumulative: 4521.338, unit: 'm3' }],
  };
}

/** Resolves when the service status satisfies `predicate` (polled; the deadline only stops a hang). */
export async function waitForStatus(
  ctx: AppContext,
  what: string,
  predicate: (status: ServiceStatus) => boolean,
  deadlineMs = 15_000,
): Promise<ServiceStatus> {
  const status = await waitFor(
    `mqtt status ${what}`,
    () => ctx.services.get('mqtt'),
    (seen) => seen !== undefined && predicate(seen),
    { deadlineMs },
  );
  return status!;
}
