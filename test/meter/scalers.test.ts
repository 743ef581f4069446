import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyScalers, currentScalers, customScalerOf, scalerIssues } from '../../src/meter/scalers.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';

function smlLike(): Reading {
  return {
    receivedAt: 0,
    protocol: 'SML',
    identity: {},
    values: valuesOf({
      '1.8.0': [15338.5557, 'kWh'],
      '1.8.1': [15338.5557, 'kWh'],
      '16.7.0': [0.5635, 'kW'],
    }),
    scalers: new Map([
      ['1.8.0', -1],
      ['1.8.1', -1],
      ['16.7.0', -1],
    ]),
    mbus: [],
  };
}

test('a custom scaler replaces the meter scaler: exact entries before C.D.255, the others untouched', () => {
  const custom = [
    { obis: '1.8.255', scaler: 0 },
    { obis: '1.8.1', scaler: -2 },
  ];
  assert.equal(customScalerOf('1.8.0', custom), 0);
  assert.equal(customScalerOf('1.8.1', custom), -2);
  assert.equal(customScalerOf('16.7.0', custom), undefined);
  const scaled = applyScalers(smlLike(), custom);
  // raw x 10^0 instead of raw x 10^-1: ten times the value.
  assert.equal(scaled.values.get('1.8.0')?.value, 153385.557);
  assert.equal(scaled.values.get('1.8.1')?.value, 1533.85557);
  assert.equal(scaled.values.get('16.7.0')?.value, 0.5635);
  assert.deepEqual(currentScalers(scaled), [
    { obis: '1.8.0', scaler: 0 },
    { obis: '1.8.1', scaler: -2 },
    { obis: '16.7.0', scaler: -1 },
  ]);
  const plain = { ...smlLike(), scalers: undefined };
  assert.equal(applyScalers(plain, custom), plain, 'a reading without meter scalers (DSMR) is not scaled');
});

test('custom scaler lists are checked: OBIS C.D.E ranges, scaler -6..6, no OBIS twice', () => {
  assert.deepEqual(scalerIssues([{ obis: '1.8.255', scaler: 3 }]), []);
  const fields = (value: unknown) => scalerIssues(value).map((issue) => issue.field);
  assert.deepEqual(fields({ obis: '1.8.0' }), ['']);
  assert.deepEqual(fields([{ obis: '1.8', scaler: 1 }]), ['[0].obis']);
  assert.deepEqual(fields([{ obis: '255.8.0', scaler: 1 }]), ['[0].obis']);
  assert.deepEqual(fields([{ obis: '1.8.0', scaler: 7 }]), ['[0].scaler']);
  assert.deepEqual(fields([{ obis: '1.8.0', scaler: 1.5 }]), ['[0].scaler']);
  assert.deepEqual(fields([{ obis: '1.8.0', scaler: 1, unit: 'x' }]), ['[0].unit']);
  assert.deepEqual(
    fields([
      { obis: '1.8.0', scaler: 1 },
      { obis: '1.8.0', scaler: 2 },
    ]),
    ['[1].obis'],
  );
});

const REPORT_ENERGY = (body: unknown) =>
  (body as { report?: { energy?: { active?: { positive?: { total?: number } } } } }).report?.energy?.active
    ?.positive?.total;

test('the scaler routes of the device: current and custom (GET, POST, PUT), applied to the readings and kept across a restart', async (t) => {
  if (!requireCorpus(t)) return;
  const capture = join(corpusDir, 'sml', 'smartmeter-obis_emh_ehz.bin');
  const state = mkdtempSync(join(tmpdir(), 'mg-scalers-'));
  const env = { METER_GATEWAY_METER_SOURCE: `file:${capture}?protocol=sml&interval=0.2&loop=true` };
  let daemon = await startDaemonProcess(state, env);
  t.after(async () => {
    await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  });
  const get = async (path: string) => (await fetch(`${daemon.baseUrl}${path}`)).json() as Promise<unknown>;
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${daemon.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const current = await waitFor(
    'the current scalers of the SML meter',
    () => get('/api/v1/meter/scalers/current') as Promise<Array<{ obis: string; scaler: number }>>,
    (list) => list.some((entry) => entry.obis === '1.8.0'),
  );
  const detected = current.find((entry) => entry.obis === '1.8.0')!.scaler;
  assert.deepEqual(await get('/api/v1/meter/scalers/custom'), []);
  assert.equal(REPORT_ENERGY(await get('/api/v1/report')), 15338.5557);

  const posted = await send('POST', '/api/v1/meter/scalers/custom', [
    { obis: '1.8.255', scaler: detected + 1 },
  ]);
  assert.equal(posted.status, 200);
  assert.deepEqual(await posted.json(), [{ obis: '1.8.255', scaler: detected + 1 }]);
  await waitFor(
    'the report with the custom scaler',
    () => get('/api/v1/report'),
    (body) => REPORT_ENERGY(body) === 153385.557,
  );
  assert.ok(
    ((await get('/api/v1/meter/scalers/current')) as Array<{ obis: string; scaler: number }>).some(
      (entry) => entry.obis === '1.8.0' && entry.scaler === detected + 1,
    ),
  );
  const put = await send('PUT', '/api/v1/meter/scalers/custom', [{ obis: '16.7.0', scaler: 0 }]);
  assert.deepEqual(await put.json(), [
    { obis: '1.8.255', scaler: detected + 1 },
    { obis: '16.7.0', scaler: 0 },
  ]);
  const bad = await send('POST', '/api/v1/meter/scalers/custom', [{ obis: '1.8', scaler: 9 }]);
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'validation_failed');
  assert.doesNotMatch(daemon.output(), /reopening/, 'new scalers do not reopen the meter');

  await daemon.stop();
  assert.ok(existsSync(join(state, 'meter.json')));
  assert.match(readFileSync(join(state, 'meter.json'), 'utf8'), /"16\.7\.0"/);
  daemon = await startDaemonProcess(state, env);
  assert.equal(((await get('/api/v1/meter/scalers/custom')) as unknown[]).length, 2);
  await waitFor(
    'the report scaled after the restart',
    () => get('/api/v1/report'),
    (body) => REPORT_ENERGY(body) === 153385.557,
  );
});

test('WPS answers as on a device without it: 404 with the reason, for POST and GET', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'mg-wps-'));
  const daemon = await startDaemonProcess(state);
  t.after(async () => {
    await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  });
  for (const method of ['POST', 'GET']) {
    const answer = await fetch(`${daemon.baseUrl}/api/v1/wifi/wps`, { method });
    assert.equal(answer.status, 404, method);
    const body = (await answer.json()) as { error: string; message: string; details: { feature: string } };
    assert.equal(body.error, 'not_found');
    assert.equal(body.details.feature, 'wps');
    assert.match(body.message, /not available on this gateway/);
  }
});
