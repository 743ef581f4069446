/**
 * Standalone Modbus slave for the benchmark: the real ModbusService over a real ConfigStore and
 * ReadingStore, default layout, one synthetic three-phase reading per second (like a DSMR meter),
 * listening on 127.0.0.1:PORT. Used by bench/modbus-bench.sh as the EXTRA target of
 * the load-generator bench's run-modbus.sh.
 *
 * usage: node --import tsx bench/modbus-slave.ts PORT
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../src/config/config-store.js';
import { createAppContext } from '../src/context.js';
import { createLogger } from '../src/log.js';
import { createModbusService } from '../src/modbus/service.js';
import { valuesOf, type Reading } from '../src/reading/reading.js';
import { registerConfigFormats } from '../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();
import { runOutput } from '../src/output-runner.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error('usage: node --import tsx bench/modbus-slave.ts PORT');
  process.exit(2);
}

function reading(step: number): Reading {
  return {
    receivedAt: Date.now(),
    protocol: 'DSMR',
    identity: { id: 'E0043007123456715', model: 'MT382-1000' },
    tariff: 1 + (step % 2),
    mbus: [],
    values: valuesOf({
      '1.8.1': [12345.678 + step / 1000, 'kWh'],
      '1.8.2': [23456.789, 'kWh'],
      '2.8.1': [1234.567, 'kWh'],
      '2.8.2': [2345.678, 'kWh'],
      '1.7.0': [1.234 + (step % 10) / 1000, 'kW'],
      '2.7.0': [0, 'kW'],
      '21.7.0': [0.4, 'kW'],
      '41.7.0': [0.41, 'kW'],
      '61.7.0': [0.424, 'kW'],
      '32.7.0': [230.1, 'V'],
      '52.7.0': [229.8, 'V'],
      '72.7.0': [231.4, 'V'],
      '31.7.0': [1.8, 'A'],
      '51.7.0': [1.9, 'A'],
      '71.7.0': [1.95, 'A'],
    }),
  };
}

const stateDir = mkdtempSync(join(tmpdir(), 'mg-modbus-bench-'));
const config = ConfigStore.load({
  env: { METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true', METER_GATEWAY_SERVICES_MODBUS_PORT: String(port) },
  stateDir,
});
const ctx = createAppContext({
  config,
  logger: createLogger('warn'),
  meterInterface: 'SIMULATOR',
  system: { id: 'B827EB12A4F0', model: 'bench', firmware: '0.1.0' },
});
const store = ctx.store;
const service = createModbusService(ctx, { host: '127.0.0.1' });
const running = runOutput(ctx, service);
await running.start();
let step = 0;
store.ingest(reading(step));
const meter = setInterval(() => store.ingest(reading(++step)), 1000);
console.error(`modbus-slave: pid ${process.pid} listening on 127.0.0.1:${service.listeningPort ?? '?'}`);

async function shutdown(): Promise<void> {
  clearInterval(meter);
  await running.stop();
  store.close();
  rmSync(stateDir, { recursive: true, force: true });
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown());
