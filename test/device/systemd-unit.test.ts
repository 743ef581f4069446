import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, requireCommand } from '../helpers/environment.js';

const UNIT = join(repoRoot, 'systemd', 'meter-gateway.service');

/** Directive -> values (a directive may repeat) of the [Service] or another section. */
function directives(text: string, section: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (current !== section) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    found.set(key, [...(found.get(key) ?? []), line.slice(eq + 1)]);
  }
  return found;
}

/**
 * systemd-analyze verify checks that ExecStart's program exists. The unit names /usr/bin/node (the
 * Pi's Node); the copy verified here names the Node running this test instead, so the check holds
 * wherever Node is installed. Nothing else is changed.
 */
function verify(unitText: string): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'unit-'));
  const file = join(dir, 'meter-gateway.service');
  writeFileSync(file, unitText.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
  return new Promise((resolve) => {
    execFile('systemd-analyze', ['verify', file], (error, _stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr });
    });
  });
}

test('systemd-analyze verify accepts the unit without a warning about it', async (t) => {
  if (!requireCommand(t, 'systemd-analyze')) return;
  const result = await verify(readFileSync(UNIT, 'utf8'));
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /meter-gateway\.service/);
});

test('systemd-analyze verify does reject a broken copy (the check can fail)', async (t) => {
  if (!requireCommand(t, 'systemd-analyze')) return;
  const broken = readFileSync(UNIT, 'utf8').replace(
    'ExecStart=/usr/bin/node ',
    'ExecStart=/nonexistent/node ',
  );
  assert.notEqual((await verify(broken)).code, 0);
});

test('the unit runs the launcher as its own user with the documented paths, capabilities and hardening', () => {
  const service = directives(readFileSync(UNIT, 'utf8'), 'Service');
  const one = (key: string) => service.get(key)?.join(' ');
  assert.equal(one('Type'), 'notify');
  assert.equal(one('NotifyAccess'), 'all');
  assert.equal(one('User'), 'meter-gateway');
  assert.equal(one('DynamicUser'), 'no');
  assert.equal(one('SupplementaryGroups'), 'dialout');
  assert.equal(one('ConfigurationDirectory'), 'meter-gateway');
  assert.equal(one('StateDirectory'), 'meter-gateway');
  assert.equal(one('Restart'), 'always');
  assert.equal(one('AmbientCapabilities'), 'CAP_NET_BIND_SERVICE');
  assert.equal(one('CapabilityBoundingSet'), 'CAP_NET_BIND_SERVICE');
  assert.match(one('Environment') ?? '', /METER_GATEWAY_HTTP_PORT=80/);
  // The allocator setting of the memory target; `npm start` runs the daemon with the same one.
  const allocator = /\bMALLOC_MMAP_THRESHOLD_=\d+/.exec(one('Environment') ?? '')?.[0];
  assert.ok(allocator, 'MALLOC_MMAP_THRESHOLD_ in the unit');
  const start = (
    JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts.start!;
  assert.ok(start.includes(`${allocator} node `), `npm start sets ${allocator}`);
  assert.match(one('WatchdogSec') ?? '', /^\d+$/);
  for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp']) assert.equal(one(key), 'yes', key);
  assert.equal(one('ProtectSystem'), 'strict');
  assert.equal(
    one('ExecStart'),
    '/usr/bin/node /opt/meter-gateway/launcher.mjs --config /etc/meter-gateway/config.json --state-dir /var/lib/meter-gateway',
  );
  // the launcher's default READY timeout (90 s) must end before systemd gives up on the start
  assert.ok(Number(one('TimeoutStartSec')) > 90 + Number(one('TimeoutStopSec')));
});
