import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../src/config/config-store.js';
import { cliCommand, repoRoot, testModuleCommand } from '../helpers/environment.js';

/** Runs the pair writer from `start`, SIGKILLs it `delayMs` after its first write; the last reported version. */
function killPairWriterAfter(stateDir: string, start: number, delayMs: number): Promise<number> {
  const { command, args } = testModuleCommand('config/settings-pair-child');
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args, stateDir, String(start)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('exit', () => {
      if (timer) clearTimeout(timer);
      const versions = output.trim().split('\n').filter(Boolean).map(Number);
      resolve(versions.length > 0 ? versions[versions.length - 1]! : start - 1);
    });
  });
}

test('SIGKILL during settings + password writes leaves the old or the new pair, never a mix', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-pair-kill-'));
  let next = 0;
  let rounds = 0;
  let sawRecovery = 0;
  while (rounds < 15) {
    const lastReported = await killPairWriterAfter(stateDir, next, 1 + Math.floor(Math.random() * 30));
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

interface Daemon {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

async function startDaemon(stateDir: string): Promise<Daemon> {
  const { command, args } = cliCommand();
  const child = spawn(command, [...args, '--state-dir', stateDir], {
    cwd: repoRoot,
    env: {
      ...process.env,
      METER_GATEWAY_HTTP_PORT: '0',
      METER_GATEWAY_HTTP_HOST: '127.0.0.1',
      METER_GATEWAY_SERVICES_BROADCAST: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const until = Date.now() + 20_000;
  let port: string | undefined;
  while (!(port = /running \(HTTP on 127\.0\.0\.1:(\d+)\)/.exec(output)?.[1])) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`daemon did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

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
    const daemon = await startDaemon(stateDir);
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
