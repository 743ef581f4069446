import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDsmrTelegram } from '../../src/meter/dsmr/parser.js';
import { dsmrToReading } from '../../src/meter/dsmr/to-reading.js';
import { MetricsCollector } from '../../src/metrics/collector.js';
import { MetricsExposition } from '../../src/metrics/exposition.js';
import { ReadingStore } from '../../src/reading/store.js';
import { TELEGRAM } from './belgian-telegram.js';

const RECEIVED_AT = Date.UTC(2021, 6, 3, 12, 51, 13);

const stores: ReadingStore[] = [];
after(() => stores.forEach((store) => store.close()));

function setUp(now: { ms: number }) {
  const store = new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'P1', now: () => now.ms });
  stores.push(store);
  store.ingest(dsmrToReading(parseDsmrTelegram(TELEGRAM), RECEIVED_AT));
  const collector = new MetricsCollector({
    meters: () => [{ id: 'main', name: 'Home', role: 'grid', store }],
    gateway: { version: '1.2.3' },
    now: () => now.ms,
  });
  return { store, exposition: new MetricsExposition(collector) };
}

/** Every meter series of the telegram, in base units: 2158.457 kWh = 7 770 445 200 J; -4.331 kW = -4331 W. */
const EXPECTED_FRESH = `# HELP meter_active_power_import_watts Active power import (W, OBIS 1-0:1.7.0)
# TYPE meter_active_power_import_watts gauge
meter_active_power_import_watts{meter="main"} 0

# HELP meter_phase_active_power_import_watts Active power import per phase (W)
# TYPE meter_phase_active_power_import_watts gauge
meter_phase_active_power_import_watts{meter="main",phase="l1"} 0
meter_phase_active_power_import_watts{meter="main",phase="l2"} 0
meter_phase_active_power_import_watts{meter="main",phase="l3"} 0

# HELP meter_active_power_export_watts Active power export (W, OBIS 1-0:2.7.0)
# TYPE meter_active_power_export_watts gauge
meter_active_power_export_watts{meter="main"} 4331

# HELP meter_phase_active_power_export_watts Active power export per phase (W)
# TYPE meter_phase_active_power_export_watts gauge
meter_phase_active_power_export_watts{meter="main",phase="l1"} 2133
meter_phase_active_power_export_watts{meter="main",phase="l2"} 0
meter_phase_active_power_export_watts{meter="main",phase="l3"} 2197

# HELP meter_voltage_volts Voltage per phase (V)
# TYPE meter_voltage_volts gauge
meter_voltage_volts{meter="main",phase="l1"} 234.6
meter_voltage_volts{meter="main",phase="l2"} 0
meter_voltage_volts{meter="main",phase="l3"} 235

# HELP meter_current_amperes Current per phase (A)
# TYPE meter_current_amperes gauge
meter_current_amperes{meter="main",phase="l1"} 9.19
meter_current_amperes{meter="main",phase="l2"} 15.87
meter_current_amperes{meter="main",phase="l3"} 9.39

# HELP meter_active_energy_import_joules_total Energy import (J, OBIS 1-0:1.8.x); per tariff when the meter has tariff registers
# TYPE meter_active_energy_import_joules_total counter
meter_active_energy_import_joules_total{meter="main",tariff="1"} 7770445200
meter_active_energy_import_joules_total{meter="main",tariff="2"} 12777264000

# HELP meter_active_energy_export_joules_total Energy export (J, OBIS 1-0:2.8.x); per tariff when the meter has tariff registers
# TYPE meter_active_energy_export_joules_total counter
meter_active_energy_export_joules_total{meter="main",tariff="1"} 22119717600
meter_active_energy_export_joules_total{meter="main",tariff="2"} 8982000000

# HELP meter_active_power_watts Active power, signed: import positive, export negative (W, OBIS 1-0:16.7.0 or 1.7.0 - 2.7.0)
# TYPE meter_active_power_watts gauge
meter_active_power_watts{meter="main"} -4331

# HELP meter_phase_active_power_watts Active power per phase, signed: import positive, export negative (W)
# TYPE meter_phase_active_power_watts gauge
meter_phase_active_power_watts{meter="main",phase="l1"} -2133
meter_phase_active_power_watts{meter="main",phase="l2"} 0
meter_phase_active_power_watts{meter="main",phase="l3"} -2197

# HELP meter_tariff Active tariff register, 1-based (OBIS 0-0:96.14.0)
# TYPE meter_tariff gauge
meter_tariff{meter="main"} 2

# HELP meter_info Meter identity; always 1
# TYPE meter_info gauge
meter_info{meter="main",name="Home",role="grid",protocol="DSMR",interface="P1",vendor="FLU",model="53769484_A",serial="1SAG3100092867"} 1

# HELP meter_up 1 while the meter sends valid readings, 0 when it is silent or not connected
# TYPE meter_up gauge
meter_up{meter="main"} 1

# HELP meter_last_reading_timestamp_seconds Unix time of the last valid reading
# TYPE meter_last_reading_timestamp_seconds gauge
meter_last_reading_timestamp_seconds{meter="main"} 1625316673

# HELP meter_frames_total Frames (telegrams) that produced a reading
# TYPE meter_frames_total counter
meter_frames_total{meter="main"} 1

# HELP meter_frame_errors_total Rejected frames by reason: crc, parse, overflow, encryption
# TYPE meter_frame_errors_total counter
meter_frame_errors_total{meter="main",reason="crc"} 0
meter_frame_errors_total{meter="main",reason="parse"} 0
meter_frame_errors_total{meter="main",reason="overflow"} 0
meter_frame_errors_total{meter="main",reason="encryption"} 0

# HELP meter_received_bytes_total Bytes received from the meter transport
# TYPE meter_received_bytes_total counter
meter_received_bytes_total{meter="main"} 0

# HELP meter_gateway_build_info Version of the meter gateway; always 1
# TYPE meter_gateway_build_info gauge
meter_gateway_build_info{version="1.2.3"} 1
`;

test('the Belgian telegram of dsmr-reader#1414 gives exactly these lines', async () => {
  const now = { ms: RECEIVED_AT + 1000 };
  const { exposition } = setUp(now);
  const { body, contentType } = await exposition.render('prometheus', false);
  assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(body, EXPECTED_FRESH);
});

test('silent: meter_up 0, instantaneous series gone, counters at their last value', async () => {
  const now = { ms: RECEIVED_AT + 1000 };
  const { exposition } = setUp(now);
  now.ms += 20_000; // past the 10 s timeout
  const { body } = await exposition.render('prometheus', false);
  assert.match(body, /^meter_up\{meter="main"\} 0$/m);
  assert.doesNotMatch(body, /_watts\{|_volts\{|_amperes\{|^meter_tariff\{/m);
  for (const line of [
    'meter_active_energy_import_joules_total{meter="main",tariff="1"} 7770445200',
    'meter_active_energy_import_joules_total{meter="main",tariff="2"} 12777264000',
    'meter_active_energy_export_joules_total{meter="main",tariff="1"} 22119717600',
    'meter_active_energy_export_joules_total{meter="main",tariff="2"} 8982000000',
    'meter_last_reading_timestamp_seconds{meter="main"} 1625316673',
    'meter_frames_total{meter="main"} 1',
  ])
    assert.ok(body.split('\n').includes(line), line);
});

test('OpenMetrics: counter families without _total, samples with it, # EOF at the end', async () => {
  const now = { ms: RECEIVED_AT + 1000 };
  const { exposition } = setUp(now);
  const { body, contentType } = await exposition.render('openmetrics', false);
  assert.equal(contentType, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
  const lines = body.split('\n');
  assert.ok(lines.includes('# TYPE meter_active_energy_import_joules counter'));
  assert.ok(lines.includes('meter_active_energy_import_joules_total{meter="main",tariff="1"} 7770445200'));
  assert.ok(lines.includes('meter_active_power_watts{meter="main"} -4331'));
  assert.ok(body.endsWith('\n# EOF\n'));
  // The text format rendered after an OpenMetrics one keeps its _total names.
  const text = await exposition.render('prometheus', false);
  assert.ok(text.body.includes('# TYPE meter_active_energy_import_joules_total counter\n'));
});
