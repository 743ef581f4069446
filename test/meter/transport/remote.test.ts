import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChallenges } from '../../../src/digest/auth-params.js';
import {
  digestAuthorization,
  digestResponse,
  pickChallenge,
} from '../../../src/meter/transport/http-auth.js';
import { readingFromLive } from '../../../src/meter/transport/live-reading.js';
import { meterInput, tempDir, waitForStatus } from './meter-input-harness.js';
import { waitFor } from '../../helpers/wait.js';
import { SseGateway, type AuthScheme } from './sse-gateway.js';

const PAYLOAD = {
  P_In: 1.234,
  P_Out: 0,
  V_P1: 231.5,
  I_P1: 5.25,
  E_In: 4321.5,
  E_In_T1: 1000.25,
  PF: 0.98,
  T: 2,
  Vol: [{ Bus: 1, M_ID: 'G0012', DT: '2026-11-21T10:00:00+01:00', Cum: 123.456 }],
  Date: '2026-11-21',
  Time: '10:00:05',
  Uptime: 1.5,
};
const REPORT = {
  meter: {
    status: 'OK',
    interface: 'OPTICAL',
    protocol: 'SML',
    id: '1EMH0004321349',
    vendor: 'EMH metering',
  },
};

// RFC 7616 §3.9.1 example: user Mufasa, password "Circle of Life", GET /dir/index.html.
const RFC_CHALLENGE =
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, ' +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", ' +
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, ' +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
const RFC_REQUEST = {
  method: 'GET',
  uri: '/dir/index.html',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};
const MUFASA = { username: 'Mufasa', password: 'Circle of Life' };

test('Digest responses match the RFC 7616 §3.9.1 example for SHA-256 and MD5', () => {
  const challenges = parseChallenges(RFC_CHALLENGE);
  assert.equal(challenges.length, 2);
  assert.equal(challenges[0]?.params.qop, 'auth, auth-int');
  assert.equal(
    digestResponse(challenges[0]!, MUFASA, RFC_REQUEST),
    '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
  );
  assert.equal(digestResponse(challenges[1]!, MUFASA, RFC_REQUEST), '8ca523f5e9506fed4657c9700eebdbec');
  assert.equal(pickChallenge(challenges)?.params.algorithm, 'SHA-256');
  const header = digestAuthorization(challenges[1]!, MUFASA, RFC_REQUEST);
  assert.match(
    header,
    /^Digest username="Mufasa", realm="http-auth@example.org", uri="\/dir\/index.html", algorithm=MD5, /,
  );
  assert.match(
    header,
    /nc=00000001, cnonce="f2\/wE4q74E6zIJEtWaHKaf5wv\/H5QzzpXusqGemxURZJ", qop=auth, response="8ca523f5e9506fed4657c9700eebdbec", opaque="FQhe/,
  );
});

test('a live payload becomes a Reading in canonical units; malformed ones are parse rejections', () => {
  const result = readingFromLive(JSON.stringify(PAYLOAD), 1000, { protocol: 'SML', identity: { id: 'x' } });
  assert.ok(result.ok);
  const { reading } = result;
  assert.deepEqual(reading.values.get('1.7.0'), { value: 1.234, unit: 'kW' });
  assert.deepEqual(reading.values.get('32.7.0'), { value: 231.5, unit: 'V' });
  assert.deepEqual(reading.values.get('1.8.1'), { value: 1000.25, unit: 'kWh' });
  assert.deepEqual(reading.values.get('13.7.0'), { value: 0.98, unit: '' });
  assert.equal(reading.tariff, 2);
  assert.deepEqual(reading.mbus, [
    { bus: 1, meterId: 'G0012', dateTime: '2026-11-21T10:00:00+01:00', cumulative: 123.456 },
  ]);
  assert.equal(reading.protocol, 'SML');
  for (const bad of ['not json', '[1,2]', '{"Date":"2026-11-21","Uptime":3}', '{"P_In":"1.2"}']) {
    const rejected = readingFromLive(bad, 0, { protocol: 'DSMR', identity: {} });
    assert.ok(!rejected.ok, bad);
    assert.equal(rejected.error.kind, 'parse');
  }
});

async function remoteRig(
  t: import('node:test').TestContext,
  scheme: AuthScheme,
  password: string,
  clientPassword = password,
) {
  const gateway = new SseGateway(scheme, password, PAYLOAD, REPORT);
  await gateway.listen();
  const credentials = clientPassword ? `:${encodeURIComponent(clientPassword)}@` : '';
  const harness = meterInput(
    tempDir('mg-remote-'),
    `http://${credentials}127.0.0.1:${gateway.port}/api/v1/live`,
  );
  t.after(async () => {
    await harness.close();
    await gateway.close();
  });
  await harness.input.start();
  return { gateway, harness };
}

for (const scheme of ['digest-sha256', 'digest-md5', 'basic'] as const) {
  test(`remote gateway with ${scheme}: readings arrive as interface REMOTE with the remote meter's identity`, async (t) => {
    const { gateway, harness } = await remoteRig(t, scheme, 's3cret pass');
    const { store } = harness;
    await waitForStatus(store, ['OK']);
    assert.equal(store.latest?.values.get('1.7.0')?.value, 1.234);
    assert.equal(store.meter.interface, 'REMOTE');
    assert.equal(store.meter.protocol, 'SML');
    assert.equal(store.meter.identity.id, '1EMH0004321349');
    const expectedPrefix =
      scheme === 'basic' ? 'Basic ' : `Digest username="", realm="gateway", uri="/api/v1/`;
    assert.ok(
      gateway.authorizations.every((header) => header.startsWith(expectedPrefix)),
      gateway.authorizations.join('\n'),
    );
    assert.ok(gateway.authorizations.length >= 2, 'report and live stream both authenticated');
  });
}

test('remote gateway: a dropped stream is NOT CONNECTED, then reopened with backoff', async (t) => {
  const { gateway, harness } = await remoteRig(t, 'digest-sha256', 'pw');
  const { store } = harness;
  await waitForStatus(store, ['OK']);
  gateway.dropStreams();
  await waitForStatus(store, ['NOT CONNECTED']);
  await waitForStatus(store, ['OK']);
  assert.ok(harness.warnings.some((line) => /retrying in 1 s/.test(line)));
});

test('remote gateway with a wrong password stays NOT CONNECTED and says why', async (t) => {
  const { harness } = await remoteRig(t, 'digest-sha256', 'right', 'wrong');
  await waitFor(
    'a 401 warning',
    () => harness.warnings,
    (lines) => lines.some((line) => /401/.test(line)),
  );
  assert.equal(harness.store.meter.status, 'NOT CONNECTED');
  assert.equal(harness.store.counters.framesOk, 0);
});

test('remote gateway: undecodable live events are counted as parse errors', async (t) => {
  const gateway = new SseGateway('none', '', { Date: '2026-11-21' }, undefined);
  await gateway.listen();
  const harness = meterInput(tempDir('mg-remote-'), `http://127.0.0.1:${gateway.port}/api/v1/live`);
  t.after(async () => {
    await harness.close();
    await gateway.close();
  });
  await harness.input.start();
  await waitFor(
    'two parse errors',
    () => harness.store.counters.parseErrors,
    (errors) => errors >= 2,
  );
  assert.equal(harness.store.meter.status, 'NO DATA');
});
