import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasCommand, requirePeer, testModuleCommand } from '../helpers/environment.js';
import { vethNamespaces } from '../helpers/netns.js';

function inNamespace(ns: string, ...args: string[]) {
  const { command, args: base } = testModuleCommand('device/mdns-peer');
  return spawn('ip', ['netns', 'exec', ns, command, ...base, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

function output(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('exit', () => resolve(text));
  });
}

type Seen = Array<{ name: string; type: string; ttl?: number; data: unknown }>;

/** Browses from namespace `ns` for `ms`; `onListening` runs once the browser's socket is bound. */
async function browse(
  ns: string,
  ms: number,
  onListening: () => void = () => undefined,
  passive = false,
): Promise<Seen> {
  const child = inNamespace(ns, 'browse', String(ms), ...(passive ? ['passive'] : []));
  child.stdout!.once('data', onListening);
  const text = await output(child);
  return JSON.parse(text.trim().split('\n').pop()!) as Seen;
}

test('announces _http._tcp (TXT id, type=100) and _modbus._tcp to another host; goodbye when Modbus stops', async (t: TestContext) => {
  const namespaces = vethNamespaces('10.231.77');
  if (
    !requirePeer(
      t,
      typeof namespaces !== 'string',
      `network namespaces for multicast (${String(namespaces)})`,
    )
  )
    return;
  if (typeof namespaces === 'string') return;
  const announcer = inNamespace(namespaces.a, 'announce', mkdtempSync(join(tmpdir(), 'mg-mdns-')));
  try {
    await new Promise<void>((resolve) => announcer.stdout!.once('data', () => resolve()));
    const seen = await browse(namespaces.b, 2000);
    const find = (name: string, type: string) => seen.find((r) => r.name === name && r.type === type);
    assert.equal(find('_http._tcp.local', 'PTR')?.data, 'gw-test._http._tcp.local');
    assert.deepEqual(find('gw-test._http._tcp.local', 'SRV')?.data, {
      priority: 0,
      weight: 0,
      port: 8080,
      target: 'gw-test.local',
    });
    assert.deepEqual(find('gw-test._http._tcp.local', 'TXT')?.data, ['id=A1B2C3D4E5F6', 'type=100']);
    assert.deepEqual(find('gw-test._modbus._tcp.local', 'SRV')?.data, {
      priority: 0,
      weight: 0,
      port: 1502,
      target: 'gw-test.local',
    });
    assert.equal(find('gw-test.local', 'A')?.data, '10.231.77.1');

    const after = await browse(namespaces.b, 1500, () => announcer.stdin!.write('modbus-off\n'));
    assert.ok(
      after.some((r) => r.name === '_modbus._tcp.local' && r.type === 'PTR' && r.ttl === 0),
      'goodbye (TTL 0) for _modbus._tcp',
    );
  } finally {
    announcer.stdin!.write('quit\n');
    await new Promise((resolve) => announcer.on('exit', resolve));
    namespaces.remove();
  }
});

/**
 * The gateway's host (namespace g) on a LAN (veth to namespace l, default route) and a container
 * bridge like docker0 (veth to namespace d): a consumer on each link must see only that link's
 * address (RFC 6762 §15), in the announcements and in the answers.
 */
function makeTwoLinks(): { g: string; l: string; d: string; tag: string; remove: () => void } | string {
  if (process.getuid?.() !== 0) return 'not root';
  if (!hasCommand('ip')) return 'no ip command';
  const tag = `${process.pid % 10000}${Math.floor(Math.random() * 1000)}`;
  const [g, l, d] = [`mgg${tag}`, `mgl${tag}`, `mgd${tag}`];
  const run = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  try {
    for (const ns of [g, l, d]) run('netns', 'add', ns);
    for (const [peer, near, far, nearAddress, farAddress] of [
      [l, `gl${tag}`, `lg${tag}`, '10.231.78.1/24', '10.231.78.2/24'],
      [d, `gd${tag}`, `dg${tag}`, '172.31.0.1/16', '172.31.0.5/16'],
    ] as const) {
      run('link', 'add', near, 'type', 'veth', 'peer', 'name', far);
      run('link', 'set', near, 'netns', g);
      run('link', 'set', far, 'netns', peer);
      for (const [ns, dev, address] of [
        [g, near, nearAddress],
        [peer, far, farAddress],
      ] as const) {
        run('-n', ns, 'addr', 'add', address, 'dev', dev);
        run('-n', ns, 'link', 'set', dev, 'up', 'multicast', 'on');
        run('-n', ns, 'link', 'set', 'lo', 'up');
      }
      run('-n', peer, 'route', 'add', '224.0.0.0/4', 'dev', far);
    }
    // The host's multicast and default route go to the LAN, as on a Pi with Docker.
    run('-n', g, 'route', 'add', 'default', 'via', '10.231.78.2');
    run('-n', g, 'route', 'add', '224.0.0.0/4', 'dev', `gl${tag}`);
  } catch (error) {
    for (const ns of [g, l, d]) spawn('ip', ['netns', 'del', ns]);
    return `cannot create network namespaces: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    g,
    l,
    d,
    tag,
    remove: () => {
      for (const ns of [g, l, d]) execFileSync('ip', ['netns', 'del', ns]);
    },
  };
}

test('with two interfaces, each link sees only its own address, in announcements and in answers', async (t: TestContext) => {
  const links = makeTwoLinks();
  if (!requirePeer(t, typeof links !== 'string', `network namespaces for multicast (${String(links)})`))
    return;
  if (typeof links === 'string') return;
  let announcer: ReturnType<typeof inNamespace> | undefined;
  try {
    // Listeners on both links first, then the gateway starts: what they see is its announcement.
    let listening = 0;
    let started: () => void = () => undefined;
    const bothListening = new Promise<void>((resolve) => (started = resolve));
    const onListening = () => {
      listening += 1;
      if (listening === 2) started();
    };
    const announced = Promise.all([
      browse(links.l, 8000, onListening, true),
      browse(links.d, 8000, onListening, true),
    ]);
    await bothListening;
    announcer = inNamespace(links.g, 'announce', mkdtempSync(join(tmpdir(), 'mg-mdns-')));
    const [onLan, onBridge] = await announced;
    const addresses = (seen: Seen) => [
      ...new Set(seen.filter((r) => r.name === 'gw-test.local' && r.type === 'A').map((r) => r.data)),
    ];
    assert.deepEqual(addresses(onLan), ['10.231.78.1'], 'announcement on the LAN');
    assert.deepEqual(addresses(onBridge), ['172.31.0.1'], 'announcement on the bridge');
    assert.ok(onBridge.some((r) => r.name === '_http._tcp.local' && r.type === 'PTR' && r.ttl === 120));

    const [lanAnswers, bridgeAnswers] = await Promise.all([browse(links.l, 1500), browse(links.d, 1500)]);
    assert.deepEqual(addresses(lanAnswers), ['10.231.78.1'], 'answers on the LAN');
    assert.deepEqual(addresses(bridgeAnswers), ['172.31.0.1'], 'answers on the bridge');

    // A second address on the bridge: the re-scan announces it there, and the LAN still sees its own.
    execFileSync('ip', ['-n', links.g, 'addr', 'add', '172.31.0.9/16', 'dev', `gd${links.tag}`]);
    const [lanAfter, bridgeAfter] = await Promise.all([
      browse(links.l, 3000, () => undefined, true),
      browse(links.d, 3000, () => announcer!.stdin!.write('rescan\n'), true),
    ]);
    assert.deepEqual(addresses(bridgeAfter).sort(), ['172.31.0.1', '172.31.0.9'], 'bridge after re-scan');
    assert.deepEqual(
      addresses(lanAfter).filter((a) => a !== '10.231.78.1'),
      [],
      'LAN after re-scan',
    );
  } finally {
    if (announcer) {
      announcer.stdin!.write('quit\n');
      await new Promise((resolve) => announcer!.on('exit', resolve));
    }
    links.remove();
  }
});
