import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerHomewizardPersonality } from './homewizard-output.js';
import { parseDsmrCapture } from '../../src/meter/dsmr/decoder.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';

test('GET /api/v1/telegram: after telegrams with a valid CRC, one without CRC is not served', async (t) => {
  if (!requireCorpus(t)) return;
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5_two_mbus.txt'));
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
  // The same telegram, changed and with its CRC cut off: what a forger or a cut line produces.
  const text = telegram.toString('latin1');
  const cut = text.slice(0, text.indexOf('!') + 1).replace('1-0:1.8.1(', '1-0:1.8.1(9') + '\r\n';
  http.ctx.store.receiveBytes(Buffer.from(cut, 'latin1'));
  const served = Buffer.from(await (await fetch(`${http.baseUrl}/api/v1/telegram`)).arrayBuffer());
  assert.match(served.toString('latin1'), /!56DD\r\n$/);
});
