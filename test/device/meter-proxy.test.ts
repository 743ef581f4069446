import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { MeterProxy } from '../../src/device/meter-proxy.js';
import { registerCoreRoutes } from '../../src/http/routes/core.js';
import { MeterInput } from '../../src/meter/meter-input.js';
import { startHttpContext } from '../helpers/http-context.js';
import { runOutput } from '../../src/output-runner.js';
import { waitFor } from '../helpers/wait.js';

// npm dsmr-parser: a DSMR parser that is not ours (CommonJS).
const dsmrParser = createRequire(import.meta.url)('dsmr-parser') as {
  parse(telegram: string): { crc: string; objects: Record<string, unknown> };
};

/** Reads from the proxy until one whole telegram ('/' .. '!CRC\r\n') arrived. */
function readTelegram(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const match = /\/[^]*?![0-9A-F]{4}\r\n/.exec(text.slice(text.indexOf('/')));
      if (match) {
        socket.destroy();
        resolve(match[0]);
      }
    });
    socket.on('error', reject);
  });
}

test('the proxy passes the raw telegrams; a foreign DSMR parser reads the same values as /api/v1/report', async () => {
  const h = await startHttpContext({
    env: {
      METER_GATEWAY_METER_SIMULATOR_INTERVAL: '1',
      METER_GATEWAY_SERVICES_METER_PROXY: 'true',
      METER_GATEWAY_METER_PROXY_PORT: '0',
    },
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
  });
  const input = new MeterInput(h.ctx, h.ctx.logger);
  const inputOutput = runOutput(h.ctx, input);
  const proxy = new MeterProxy(h.ctx, h.ctx.logger);
  const proxyOutput = runOutput(h.ctx, proxy);
  try {
    await proxyOutput.start();
    await inputOutput.start();
    assert.equal(h.ctx.services.get('meter_proxy')?.state, 'running');
    let matched = false;
    for (let attempt = 0; attempt < 5 && !matched; attempt++) {
      const telegram = await readTelegram(proxy.port!);
      const parsed = dsmrParser.parse(telegram);
      const { report } = (await (await fetch(`${h.baseUrl}/api/v1/report`)).json()) as {
        report: {
          date_time_utc: string;
          energy: { active: Record<'positive' | 'negative', { t1: number; t2: number }> };
          instantaneous_power: { active: Record<'positive' | 'negative', { total: number }> };
          tariff: number;
        };
      };
      // Same telegram? The report's time is the telegram's 0-0:1.0.0 timestamp (Dutch time, S = +02:00, W = +01:00).
      const [, yy, mo, dd, hh, mi, ss, flag] =
        /0-0:1\.0\.0\((\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)([SW])\)/.exec(telegram)!;
      const sent = Date.parse(`20${yy}-${mo}-${dd}T${hh}:${mi}:${ss}${flag === 'S' ? '+02:00' : '+01:00'}`);
      if (sent !== Date.parse(report.date_time_utc)) continue;
      matched = true;
      assert.equal(parsed.objects['electricity delivered tariff 1'], report.energy.active.positive.t1);
      assert.equal(parsed.objects['electricity delivered tariff 2'], report.energy.active.positive.t2);
      assert.equal(parsed.objects['electricity received tariff 1'], report.energy.active.negative.t1);
      assert.equal(parsed.objects['electricity received tariff 2'], report.energy.active.negative.t2);
      assert.equal(
        parsed.objects['actual electricity power delivered'],
        report.instantaneous_power.active.positive.total,
      );
      assert.equal(
        parsed.objects['actual electricity power received'],
        report.instantaneous_power.active.negative.total,
      );
      assert.equal(parsed.objects['tariff indicator electricity'], report.tariff);
    }
    assert.ok(matched, 'a proxied telegram matched the report');

    // Switched off live: the port closes.
    const port = proxy.port!;
    assert.equal(h.ctx.config.apply(new Map([['services.meter_proxy', false]])).ok, true);
    await waitFor(
      'the proxy to stop',
      () => h.ctx.services.get('meter_proxy'),
      (s) => s?.state === 'disabled',
    );
    assert.equal(h.ctx.services.get('meter_proxy')?.port, undefined, 'no port while it is off');
    await assert.rejects(
      new Promise((resolve, reject) => connect(port, '127.0.0.1').on('connect', resolve).on('error', reject)),
      /ECONNREFUSED/,
    );
  } finally {
    await inputOutput.stop();
    await proxyOutput.stop();
    await h.close();
  }
});
