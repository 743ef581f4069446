import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { corpusDir, requireCommand, requireCorpus } from '../helpers/environment.js';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';
import { send, type Reply } from '../http/http-client.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort } from '../helpers/ports.js';

/**
 * GET /metrics of the running daemon, checked by Debian's promtool (`promtool check metrics`: the text
 * format parses and the exposition passes its lint, naming and unit rules included) for a DSMR, an SML and a
 * Modbus meter; plus authentication (Basic on, off, `public`), `enable` and the OpenMetrics negotiation.
 */

async function daemon(t: TestContext, env: Record<string, string>): Promise<ListeningDaemon> {
  const started = await startDaemonProcess(tempDir('mg-metrics-', t), env);
  t.after(() => started.stop());
  return started;
}

/** Scrapes until `ready` holds for the body (the meter needs a reading or two). */
async function scrapeUntil(
  d: ListeningDaemon,
  ready: (body: string) => boolean,
  headers = {},
): Promise<Reply> {
  const until = Date.now() + 30_000;
  for (;;) {
    const reply = await send(d.baseUrl, 'GET', '/metrics', { headers });
    if (reply.status === 200 && ready(reply.text)) return reply;
    if (Date.now() > until) throw new Error(`no ready scrape: ${reply.status}\n${reply.text}\n${d.output()}`);
    await sleep(100);
  }
}

/** promtool's verdict on an exposition: exit 0 and nothing printed (no lint warning either). */
function promtoolCheck(body: string): void {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  assert.equal(`${result.stdout}${result.stderr}`, '', 'promtool printed problems');
  assert.equal(result.status, 0);
}

const up = (body: string) => /^meter_up\{meter="main"\} 1$/m.test(body);

test('DSMR meter (file source): promtool check metrics passes without a warning', async (t) => {
  if (!requireCommand(t, 'promtool') || !requireCorpus(t)) return;
  const capture = join(corpusDir, 'dsmr', 'ndokter_fluvius_v171.txt');
  const d = await daemon(t, {
    METER_GATEWAY_METER_SOURCE: `file:${capture}?protocol=dsmr&interval=1&loop=true`,
    METER_GATEWAY_SERVICES_METRICS_PROCESS: 'true',
  });
  const reply = await scrapeUntil(d, up);
  assert.equal(reply.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  promtoolCheck(reply.text);
  // Belgian eMUCS 1.7.1: tariffs, gas and water on M-Bus, process metrics on request.
  assert.match(reply.text, /^meter_active_energy_import_joules_total\{meter="main",tariff="1"\} \d+/m);
  assert.doesNotMatch(reply.text, /^meter_active_energy_import_joules_total\{meter="main"\}/m);
  assert.match(reply.text, /^meter_gas_volume_cubic_meters_total\{meter="main",channel="1"\} [\d.]+$/m);
  assert.match(reply.text, /^meter_water_volume_cubic_meters_total\{meter="main",channel="2"\} [\d.]+$/m);
  assert.match(reply.text, /^process_resident_memory_bytes \d+/m);
  assert.doesNotMatch(reply.text, /^\S+\{[^}]*\} \S+ \d+$/m, 'no sample has a timestamp');
});

test('SML meter (file source): promtool check metrics passes without a warning', async (t) => {
  if (!requireCommand(t, 'promtool') || !requireCorpus(t)) return;
  const capture = join(corpusDir, 'sml', 'libsml-testing', 'DZG_DVS-7412.2_jmberg.bin');
  const d = await daemon(t, {
    METER_GATEWAY_METER_SOURCE: `file:${capture}?protocol=sml&interval=1&loop=true`,
  });
  const reply = await scrapeUntil(d, up);
  promtoolCheck(reply.text);
  assert.match(reply.text, /^meter_info\{meter="main",[^}]*protocol="SML"/m);
  // SML sends the signed 16.7.0 and untariffed 1.8.0 with zero tariff registers, or no tariff registers.
  assert.match(reply.text, /^meter_active_power_watts\{meter="main"\} -?[\d.]+$/m);
  assert.match(
    reply.text,
    /^meter_active_energy_import_joules_total\{meter="main"(,tariff="\d")?\} [\d.e+]+$/m,
  );
  assert.doesNotMatch(reply.text, /^process_/m, 'no process metrics unless services.metrics.process');
});

test('Modbus meter (a daemon reads another over Modbus TCP): promtool passes, Modbus counters shown', async (t) => {
  if (!requireCommand(t, 'promtool')) return;
  const port = await freePort();
  const slave = await daemon(t, {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(port),
    METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630',
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
  });
  const reader = await daemon(t, {
    METER_GATEWAY_METER_SOURCE: `modbus-tcp://127.0.0.1:${port}?unit=1&profile=sdm630&interval=0.2`,
  });
  const read = await scrapeUntil(reader, up);
  promtoolCheck(read.text);
  assert.match(read.text, /^meter_info\{meter="main",[^}]*protocol="MODBUS"/m);
  assert.match(read.text, /^meter_voltage_volts\{meter="main",phase="l1"\} [\d.]+$/m);
  const served = await scrapeUntil(slave, (body) =>
    /^meter_gateway_modbus_requests_total\{server="tcp"\} [1-9]/m.test(body),
  );
  promtoolCheck(served.text);
  // FC 01 (coils, mbpoll -t 0): the slave has none and answers exception 01, counted under its code.
  if (!requireCommand(t, 'mbpoll')) return;
  spawnSync('mbpoll', ['-1', '-m', 'tcp', '-p', String(port), '-a', '1', '-t', '0', '-r', '1', '127.0.0.1'], {
    stdio: 'ignore',
    timeout: 10_000,
  });
  const after = await scrapeUntil(slave, (body) =>
    /^meter_gateway_modbus_exceptions_total\{server="tcp",code="1"\} [1-9]/m.test(body),
  );
  promtoolCheck(after.text);
});

test('Basic auth when protection is on; public opens only /metrics; enable false answers 404', async (t) => {
  const d = await daemon(t, {
    METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    METER_GATEWAY_SYSTEM_PASSWORD: 'scrape-pw',
  });
  const refused = await send(d.baseUrl, 'GET', '/metrics');
  assert.equal(refused.status, 401);
  assert.ok(refused.distinct['www-authenticate']?.some((challenge) => challenge.startsWith('Basic ')));
  const basic = `Basic ${Buffer.from('prometheus:scrape-pw').toString('base64')}`;
  const wrong = `Basic ${Buffer.from('prometheus:nope').toString('base64')}`;
  assert.equal((await send(d.baseUrl, 'GET', '/metrics', { headers: { authorization: wrong } })).status, 401);
  await scrapeUntil(d, up, { authorization: basic });

  const put = (services: Record<string, unknown>) =>
    send(d.baseUrl, 'PUT', '/api/v1/settings', {
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ services: { metrics: services } }),
    });
  assert.equal((await put({ public: true })).status, 200);
  const open = await send(d.baseUrl, 'GET', '/metrics');
  assert.equal(open.status, 200);
  assert.match(open.text, /^meter_gateway_build_info\{version="[^"]+"\} 1$/m);
  assert.equal((await send(d.baseUrl, 'GET', '/api/v1/report')).status, 401, 'the rest stays protected');

  assert.equal((await put({ enable: false })).status, 200);
  const off = await send(d.baseUrl, 'GET', '/metrics');
  assert.equal(off.status, 404);
  assert.equal(off.json().error, 'not_found');
});

test('Accept: OpenMetrics when the scraper prefers it, the text format otherwise', async (t) => {
  const d = await daemon(t, {});
  // Prometheus 2.x's own Accept header (scrape_protocols default).
  const prometheus =
    'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
  const om = await scrapeUntil(d, up, { accept: prometheus });
  assert.equal(om.headers['content-type'], 'application/openmetrics-text; version=1.0.0; charset=utf-8');
  assert.ok(om.text.endsWith('# EOF\n'));
  const text = await send(d.baseUrl, 'GET', '/metrics', { headers: { accept: 'text/plain;version=0.0.4' } });
  assert.equal(text.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  assert.ok(!text.text.includes('# EOF'));
});
