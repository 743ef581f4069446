import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasCommand, requirePeer, testModuleCommand } from '../helpers/environment.js';

/** Two network namespaces joined by a veth pair, so multicast is really delivered between two hosts. */
function makeNamespaces(): { a: string; b: string; remove: () => void } | string {
  if (process.getuid?.() !== 0) return 'not root';
  if (!hasCommand('ip')) return 'no ip command';
  const tag = `${process.pid % 10000}${Math.floor(Math.random() * 1000)}`;
  const a = `mga${tag}`;
  const b = `mgb${tag}`;
  const run = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  try {
    run('netns', 'add', a);
    run('netns', 'add', b);
    run('link', 'add', `va${tag}`, 'type', 'veth', 'peer', 'name', `vb${tag}`);
    run('link', 'set', `va${tag}`, 'netns', a);
    run('link', 'set', `vb${tag}`, 'netns', b);
    for (const [ns, dev, address] of [
      [a, `va${tag}`, '10.231.77.1/24'],
      [b, `vb${tag}`, '10.231.77.2/24'],
    ] as const) {
      run('-n', ns, 'addr', 'add', address, 'dev', dev);
      run('-n', ns, 'link', 'set', dev, 'up', 'multicast', 'on');
      run('-n', ns, 'link', 'set', 'lo', 'up');
      run('-n', ns, 'route', 'add', '224.0.0.0/4', 'dev', dev);
    }
  } catch (error) {
    for (const ns of [a, b]) spawn('ip', ['netns', 'del', ns]);
    return `cannot create network namespaces: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    a,
    b,
    remove: () => {
      for (const ns of [a, b]) execFileSync('ip', ['netns', 'del', ns]);
    },
  };
}

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
async function browse(ns: string, ms: number, onListening: () => void = () => undefined): Promise<Seen> {
  const child = inNamespace(ns, 'browse', String(ms));
  child.stdout!.once('data', onListening);
  const text = await output(child);
  return JSON.parse(text.trim().split('\n').pop()!) as Seen;
}

test('announces _http._tcp (TXT id, type=100) and _modbus._tcp to another host; goodbye when Modbus stops', async (t: TestContext) => {
  const namespaces = makeNamespaces();
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
