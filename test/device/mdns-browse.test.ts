import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { requirePeer, testModuleCommand } from '../helpers/environment.js';
import { vethNamespaces } from '../helpers/netns.js';
import { parseSource } from '../../src/meter/source.js';
import type { FoundDongle } from '../../src/device/mdns-browse.js';

// The browse in namespace a, dongles answering in namespace b (test/device/mdns-dongles-peer.ts):
// real multicast over a veth pair that exists only for the test.

function inNamespace(ns: string, ...args: string[]) {
  const { command, args: base } = testModuleCommand('device/mdns-dongles-peer');
  return spawn('ip', ['netns', 'exec', ns, command, ...base, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

function lastLine(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('exit', () => resolve(text.trim().split('\n').pop() ?? ''));
  });
}

interface Browsed {
  devices: FoundDongle[];
  refusals: Record<string, number>;
}

async function withDongles(
  t: TestContext,
  hostile: boolean,
  run: (browse: (systemId: string, max?: number) => Promise<Browsed>) => Promise<void>,
): Promise<void> {
  const namespaces = vethNamespaces('10.231.79');
  if (
    !requirePeer(
      t,
      typeof namespaces !== 'string',
      `network namespaces for multicast (${String(namespaces)})`,
    )
  )
    return;
  if (typeof namespaces === 'string') return;
  const dongles = inNamespace(namespaces.b, 'dongles', hostile ? 'hostile' : 'plain', '10.231.79.2');
  try {
    await new Promise<void>((resolve) => dongles.stdout!.once('data', () => resolve()));
    const more = (max: number | undefined) => (max === undefined ? [] : [String(max)]);
    await run(
      async (systemId, max) =>
        JSON.parse(
          await lastLine(inNamespace(namespaces.a, 'browse', systemId, '2500', ...more(max))),
        ) as Browsed,
    );
  } finally {
    dongles.stdin!.write('quit\n');
    await new Promise((resolve) => dongles.on('exit', resolve));
    namespaces.remove();
  }
}

const P1: FoundDongle = {
  kind: 'homewizard',
  name: 'p1meter-334455',
  host: '10.231.79.2',
  port: 80,
  product: 'HWE-P1',
  source: 'homewizard://10.231.79.2',
};
const PRO3EM: FoundDongle = {
  kind: 'shelly',
  name: 'shellypro3em-c8f09e8e1234',
  host: '10.231.79.2',
  port: 8080,
  product: 'Pro3EM',
  source: 'shelly://10.231.79.2:8080',
};

test('finds a HomeWizard P1 meter and a Shelly Pro 3EM (Gen2, once for its two services), not a Gen1 Shelly or a printer', async (t) => {
  await withDongles(t, false, async (browse) => {
    const { devices, refusals } = await browse('A1B2C3D4E5F6');
    assert.deepEqual(devices, [P1, PRO3EM]);
    assert.deepEqual(refusals, {});
    // Each source is one the meter sources take, pointing at the dongle.
    assert.deepEqual(parseSource(P1.source), {
      kind: 'homewizard',
      host: '10.231.79.2',
      port: 80,
      intervalMs: 1000,
      telegram: false,
    });
    assert.deepEqual(parseSource(PRO3EM.source), {
      kind: 'shelly',
      host: '10.231.79.2',
      port: 8080,
      intervalMs: 1000,
    });
  });
});

test("the gateway's own HomeWizard and Shelly personalities are not listed; the list is bounded", async (t) => {
  await withDongles(t, false, async (browse) => {
    // System id 5c2faf334455 is the HomeWizard serial's; c8f09e8e1234 the Shelly id's.
    assert.deepEqual((await browse('5C2FAF334455')).devices, [PRO3EM]);
    assert.deepEqual((await browse('C8F09E8E1234')).devices, [P1]);
    // The list is bounded: over the bound, devices are counted, not listed.
    const bounded = await browse('A1B2C3D4E5F6', 1);
    assert.deepEqual(bounded.devices, [P1]);
    assert.deepEqual(bounded.refusals, { mdns_browse_too_many: 1 });
  });
});

test('hostile answers (garbage, a compression-pointer loop, a truncated record, 500 records) are dropped and counted', async (t) => {
  await withDongles(t, true, async (browse) => {
    const { devices, refusals } = await browse('A1B2C3D4E5F6');
    assert.deepEqual(devices, [P1, PRO3EM]);
    // Each of the three undecodable datagrams for each of the two questions.
    assert.ok((refusals.mdns_answer_undecodable ?? 0) >= 3, JSON.stringify(refusals));
    assert.ok((refusals.mdns_answer_oversized ?? 0) >= 1, JSON.stringify(refusals));
  });
});
