import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../src/config/config-store.js';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';
import { killWriterAfter } from '../helpers/killed-writer.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

test('SIGKILL during settings + password writes leaves the old or the new pair, never a mix', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-pair-kill-'));
  let next = 0;
  let rounds = 0;
  let sawRecovery = 0;
  while (rounds < 15) {
    const lastReported = await killWriterAfter(
      'config/settings-pair-child',
      [stateDir],
      next,
      1 + Math.floor(Math.random() * 30),
    );
    rounds += 1;
    const store = ConfigStore.load({ env: {}, stateDir });
    if (store.recovery.removedTemp.length > 0 || store.recovery.replayed.length > 0) sawRecovery += 1;
    const { name, password, protection } = store.config.system;
    const version = Number(name.slice(1));
    assert.equal(password, `p${version}`, `round ${rounds}: ${name} with ${password}`);
    assert.equal(protection, true);
    assert.ok(
      version === lastReported || version === lastReported + 1,
      `round ${rounds}: version ${version}, last reported ${lastReported}`,
    );
    const left = readdirSync(stateDir).filter((f) => f.endsWith('.tmp') || f === 'transaction.json');
    assert.deepEqual(left, [], `round ${rounds}: start-up leaves no temp file or journal`);
    assert.equal(statSync(join(stateDir, 'secrets.json')).mode & 0o777, 0o600);
    next = version + 1;
  }
  assert.ok(next >= rounds, `only ${next} pairs written in ${rounds} rounds`);
  process.stdout.write(
    `# ${rounds} kills, ${next} pairs, ${sawRecovery} start-ups cleaned up after a kill\n`,
  );
});

test('a committed journal is replayed and leftover temp files are removed at start-up', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-journal-'));
  writeFileSync(
    join(stateDir, 'settings.json'),
    JSON.stringify({ system: { name: 'old', protection: false } }),
  );
  writeFileSync(
    join(stateDir, 'transaction.json'),
    JSON.stringify({
      settings: { system: { name: 'new', protection: true } },
      secrets: { system: { password: 'pw' } },
    }),
  );
  writeFileSync(join(stateDir, '.secrets.json.123.abcd.tmp'), '{"system":{"password":"half');
  const store = ConfigStore.load({ env: {}, stateDir });
  assert.deepEqual(store.recovery, {
    removedTemp: ['.secrets.json.123.abcd.tmp'],
    replayed: ['settings', 'secrets'],
  });
  assert.equal(store.config.system.name, 'new');
  assert.equal(store.config.system.password, 'pw');
  assert.equal(store.config.system.protection, true);
  assert.deepEqual(readdirSync(stateDir).sort(), ['secrets.json', 'settings.json']);
});

for (const [what, secrets] of [
  ['a missing', undefined],
  ['an empty', ''],
  ['a corrupt', '{"system":{"password":"tru'],
  ['a password-less', '{}'],
] as const) {
  test(`protection on with ${what} secrets file fails closed: every route answers 401`, async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mg-fail-closed-'));
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, 'settings.json'), JSON.stringify({ system: { protection: true } }));
    if (secrets !== undefined) writeFileSync(join(stateDir, 'secrets.json'), secrets, { mode: 0o600 });
    // The daemon in this process: the test reads its answers and its log, kills nothing.
    const daemon = await startDaemonInProcess(stateDir);
    try {
      const emptyBasic = `Basic ${Buffer.from(':').toString('base64')}`;
      for (const path of ['/api/v1/system', '/api/v1/report', '/api/v1/settings', '/api/v1/live', '/']) {
        for (const headers of [{}, { Authorization: emptyBasic }] as Record<string, string>[]) {
          const reply = await fetch(`${daemon.baseUrl}${path}`, { headers });
          assert.equal(reply.status, 401, `${path} ${JSON.stringify(headers)}`);
          await reply.body?.cancel();
        }
      }
      const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Authorization: emptyBasic },
        body: JSON.stringify({ system: { protection: false } }),
      });
      assert.equal(put.status, 401);
      assert.match(daemon.output(), /system\.protection is on but no password is stored/);
    } finally {
      await daemon.stop();
    }
  });
}
