import { test } from 'node:test';
import assert from 'node:assert/strict';
import { P1MeterApi } from 'homewizard-energy-api';
import { registerHomewizardPersonality } from './homewizard-output.js';
import { parseDsmrCapture } from '../../src/meter/dsmr/decoder.js';
import { corpusBytes } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';

// The real npm client (homewizard-energy-api, the library behind Homebridge's HomeWizard plugin)
// reads the personality as it reads a HWE-P1 device.
test('homewizard-energy-api reads /api, /api/v1/data and /api/v1/telegram with the meter values', async (t) => {
  const telegram = corpusBytes(t, 'dsmr/ndokter_v5.txt');
  if (!telegram) return;
  const http = await startHttpContext({
    env: { METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true' },
    meterInterface: 'P1',
    routes: registerHomewizardPersonality,
  });
  t.after(() => http.close());
  http.ctx.store.receiveBytes(telegram);
  const [result] = parseDsmrCapture(telegram, http.clock.now());
  assert.ok(result?.ok);
  http.ctx.store.ingest(result.reading);
  const reading = http.ctx.store.latest!;

  const api = new P1MeterApi(http.baseUrl);
  const info = await api.getBasicInformation();
  assert.equal(info.product_type, 'HWE-P1');
  assert.equal(info.api_version, 'v1');
  assert.equal(info.serial, 'a1b2c3d4e5f6');

  const data = await api.getData();
  const kw = (key: string) => reading.values.get(key)!.value;
  assert.equal(data.total_power_import_t1_kwh, kw('1.8.1'));
  assert.equal(data.total_power_import_t2_kwh, kw('1.8.2'));
  assert.equal(data.total_power_export_t1_kwh, kw('2.8.1'));
  assert.equal(data.active_power_w, Math.round((kw('1.7.0') - kw('2.7.0')) * 1e6) / 1e3);
  assert.equal(data.smr_version, 50);
  assert.equal(data.total_gas_m3, reading.mbus.find((m) => m.deviceType === 3)!.cumulative);

  const text = await api.getTelegram();
  assert.equal(text, telegram.toString('latin1').slice(0, telegram.indexOf('!') + 7));
});
