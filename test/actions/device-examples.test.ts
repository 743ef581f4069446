import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { hasPymodbus, readBack, recordingServer, startActionsRig, startModbusSlave } from './rig.js';

/**
 * The device documentation's own examples ("Actions Definition", "Actions Status" of the whatwatt Go
 * documentation), with only the addresses pointed at loopback peers: its definition with `${name}`
 * constants, and its status polling loop (curl and jq in a shell) run until the action is done.
 */

/** The documentation's example definition; `hosts` replaces its LAN addresses. */
function documentedDefinition(hosts: { device: string; bulb: string; switch: string; modbusPort: number }) {
  return {
    const: { bulb: hosts.bulb, switch: hosts.switch, bri: '20' },
    actions: [
      {
        id: '1',
        requests: [
          {
            http: {
              url: `http://${hosts.device}/api/v1/device/self`,
              method: 'POST',
              payload: 'action=toggle',
              headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            },
          },
          { http: { url: 'http://${switch}/toggle' } },
        ],
      },
      {
        id: '2',
        requests: [{ http: { url: 'http://${bulb}/light/0?turn=on&brightness=${bri}&temp=3000' } }],
      },
      {
        id: '3',
        requests: [
          { http: { url: 'http://${bulb}/light/0', method: 'POST', payload: 'turn=off', timeout: 2 } },
        ],
      },
      {
        id: '4',
        requests: [
          {
            modbus: {
              host: '127.0.0.1',
              port: hosts.modbusPort,
              unit_id: 1,
              func: 16,
              address: 10,
              type: 'short',
              value: '${bri}',
              timeout: 2,
            },
          },
        ],
      },
    ],
  };
}

/**
 * The documented monitoring workflow: POST /call with `curl -i`, the status id from the Location
 * header, then GET /status with jq's `.[0].code` until the code is a result. The documentation's loop
 * goes on while the code is null or 0; it is also -1 while running ("poll until code ≠ -1"). Bounded:
 * a code that never becomes a result fails the test instead of hanging it.
 */
const POLLING_LOOP = `
base=$1; action=$2
response=$(curl -s -i -X POST "$base/api/v1/actions/call?id=$action")
status_id=$(echo "$response" | grep -i "location:" | sed 's/.*id=\\([0-9]*\\).*/\\1/' | tr -d '\\r')
[ -n "$status_id" ] || { echo "no status id: $response"; exit 2; }
for attempt in $(seq 1 100); do
  code=$(curl -s "$base/api/v1/actions/status?id=$status_id" | jq -r '.[0].code')
  if [ "$code" != "null" ] && [ "$code" != "0" ] && [ "$code" != "-1" ]; then echo "$code"; exit 0; fi
  sleep 0.1
done
echo "never done: last code $code"; exit 3
`;

function pollUntilDone(baseUrl: string, action: string): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', POLLING_LOOP, 'poll', baseUrl, action], (error, stdout) =>
      error ? reject(new Error(`${error.message}: ${stdout}`)) : resolve(Number(stdout.trim())),
    ),
  );
}

test("the documentation's definition with ${name} constants runs, and its polling loop finishes", async (t) => {
  if (!requireCommand(t, 'curl') || !requireCommand(t, 'jq')) return;
  if (!requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')) return;
  const device = await recordingServer(200);
  const bulb = await recordingServer(200);
  const switcher = await recordingServer(204);
  const slave = await startModbusSlave();
  const rig = await startActionsRig();
  try {
    const host = (url: string) => new URL(url).host;
    const definition = documentedDefinition({
      device: host(device.url),
      bulb: host(bulb.url),
      switch: host(switcher.url),
      modbusPort: slave.port,
    });
    const posted = await rig.post(definition);
    assert.equal(posted.status, 200, await posted.clone().text());
    assert.deepEqual(await (await fetch(`${rig.baseUrl}/api/v1/actions`)).json(), definition);

    assert.equal(await pollUntilDone(rig.baseUrl, '1'), 204);
    assert.deepEqual(
      [device.requests[0]!.method, device.requests[0]!.url, device.requests[0]!.body],
      ['POST', '/api/v1/device/self', 'action=toggle'],
    );
    assert.equal(device.requests[0]!.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(
      switcher.requests.map((request) => request.url),
      ['/toggle'],
    );
    assert.equal(await pollUntilDone(rig.baseUrl, '2'), 200);
    assert.equal(bulb.requests[0]!.url, '/light/0?turn=on&brightness=20&temp=3000');
    assert.equal(await pollUntilDone(rig.baseUrl, '3'), 200);
    assert.deepEqual([bulb.requests[1]!.method, bulb.requests[1]!.body], ['POST', 'turn=off']);
    // The device's table: 1 is a successful Modbus write.
    assert.equal(await pollUntilDone(rig.baseUrl, '4'), 1);
    assert.deepEqual(await readBack(slave.port, 'hr', 10, 1), [20]);
  } finally {
    await rig.close();
    await slave.stop();
    await Promise.all([device.close(), bulb.close(), switcher.close()]);
  }
});

test('a refused connection ends with the device code -17, for Modbus and HTTP alike', async (t) => {
  if (!requireCommand(t, 'curl') || !requireCommand(t, 'jq')) return;
  const gone = await recordingServer(200);
  await gone.close();
  const port = Number(new URL(gone.url).port);
  const rig = await startActionsRig();
  try {
    const posted = await rig.post({
      const: { target: '127.0.0.1' },
      actions: [
        { id: 'm', requests: [{ modbus: { host: '${target}', port, func: 6, address: 0, value: '1' } }] },
        { id: 'h', requests: [{ http: { url: `http://\${target}:${port}/x` } }] },
      ],
    });
    assert.equal(posted.status, 200, await posted.clone().text());
    assert.equal(await pollUntilDone(rig.baseUrl, 'm'), -17);
    assert.equal(await pollUntilDone(rig.baseUrl, 'h'), -17);
  } finally {
    await rig.close();
  }
});

test('a constant and a template variable of one name: ${name} is the constant, ${const.name} too', async () => {
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  try {
    const posted = await rig.post({
      const: { tariff: 'mine', n: 7 },
      actions: [
        {
          id: 'a',
          requests: [
            { http: { url: `${target.url}/`, method: 'POST', payload: '${tariff} ${const.tariff} ${n}' } },
          ],
        },
      ],
    });
    assert.equal(posted.status, 200);
    assert.equal((await rig.callAndWait('a')).code, 200);
    assert.equal(target.requests[0]!.body, 'mine mine 7');
    const unknown = await rig.post({
      actions: [{ id: 'a', requests: [{ http: { url: 'http://h/${bri}' } }] }],
    });
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /unknown variable \$\{bri\}/);
  } finally {
    await rig.close();
    await target.close();
  }
});

test('GET /actions answers 404 while no definition is set and after DELETE, as the device does', async () => {
  const rig = await startActionsRig();
  try {
    const before = await fetch(`${rig.baseUrl}/api/v1/actions`);
    assert.equal(before.status, 404);
    assert.equal(((await before.json()) as { error: string }).error, 'not_found');
    assert.equal((await rig.post({ actions: [{ id: 'a' }] })).status, 200);
    assert.equal((await fetch(`${rig.baseUrl}/api/v1/actions`)).status, 200);
    assert.equal((await fetch(`${rig.baseUrl}/api/v1/actions`, { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(`${rig.baseUrl}/api/v1/actions`)).status, 404);
  } finally {
    await rig.close();
  }
});

test("a definition of 8191 bytes is taken and one of 8192 answers 413 (the device's limit)", async () => {
  const rig = await startActionsRig();
  try {
    const sized = (bytes: number) => {
      const shell = JSON.stringify({ const: { text: '' }, actions: [] });
      return JSON.stringify({ const: { text: 'x'.repeat(bytes - shell.length) }, actions: [] });
    };
    const post = (body: string) =>
      fetch(`${rig.baseUrl}/api/v1/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    assert.equal(sized(8191).length, 8191);
    assert.equal((await post(sized(8191))).status, 200);
    assert.equal((await post(sized(8192))).status, 413);
  } finally {
    await rig.close();
  }
});

test('GET /actions/status without an id answers 404, a response the device OpenAPI lists', async () => {
  const rig = await startActionsRig();
  try {
    for (const query of ['', '?id=', '?id=abc']) {
      const answer = await fetch(`${rig.baseUrl}/api/v1/actions/status${query}`);
      assert.equal(answer.status, 404, query);
      assert.equal(((await answer.json()) as { error: string }).error, 'not_found');
    }
  } finally {
    await rig.close();
  }
});
