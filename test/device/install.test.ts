import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, requirePeer } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';

const LAUNCHER = join(repoRoot, 'dist', 'scripts', 'launcher.js');

test('the launcher with no release installed exits 78 (no restart loop) with a clear journal error', () => {
  const root = mkdtempSync(join(tmpdir(), 'mg-no-release-'));
  const result = spawnSync(process.execPath, [LAUNCHER, '--launcher-root', root, '--state-dir', root], {
    env: { ...process.env, JOURNAL_STREAM: '8:1234' },
    encoding: 'utf8',
  });
  assert.equal(result.status, 78, result.stderr);
  assert.match(
    result.stderr,
    /^<3>launcher: no release installed: .*current does not exist; install one with 'sudo systemd\/install\.sh'/m,
  );
  const unit = readFileSync(join(repoRoot, 'systemd', 'meter-gateway.service'), 'utf8');
  assert.match(unit, /^RestartPreventExitStatus=78$/m);
  assert.match(unit, /^StartLimitBurst=\d+$/m);
  assert.doesNotMatch(unit, /^StartLimitIntervalSec=0$/m, 'restarts are bounded');
});

// Two full install.sh runs (the build and its production packages copied) and a launched daemon.
const INSTALL_RUNS = { timeout: 300_000 };

const INSTALL_AND_SERVE =
  'systemd/install.sh installs this build as a release the launcher starts and that serves the API';

test(INSTALL_AND_SERVE, INSTALL_RUNS, async (t) => {
  const isRoot = process.getuid?.() === 0;
  if (!requirePeer(t, isRoot, 'root (install.sh creates users and owns files)')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mg-install-'));
  const [prefix, configDir, stateDir] = ['opt', 'etc', 'state'].map((name) => join(dir, name)) as [
    string,
    string,
    string,
  ];
  const install = spawnSync(
    'bash',
    [
      join(repoRoot, 'systemd', 'install.sh'),
      '--no-systemd',
      ...['--prefix', prefix, '--config-dir', configDir, '--state-dir', stateDir, '--user', 'root'],
    ],
    { encoding: 'utf8' },
  );
  assert.equal(install.status, 0, install.stdout + install.stderr);
  assert.match(readlinkSync(join(prefix, 'current')), /^releases\/\d+\.\d+\.\d+-local-\d{14}$/);
  assert.ok(existsSync(join(prefix, 'launcher.mjs')));
  assert.ok(!existsSync(join(prefix, 'current', 'node_modules', 'typescript')), 'dev packages pruned');
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
    meter: { source: string };
  };
  assert.equal(config.meter.source, 'simulator');

  // A second run keeps the admin's config file as it is.
  mkdirSync(configDir, { recursive: true });
  const again = spawnSync(
    'bash',
    [
      join(repoRoot, 'systemd', 'install.sh'),
      '--no-systemd',
      '--prefix',
      prefix,
      '--config-dir',
      configDir,
      '--state-dir',
      stateDir,
      '--user',
      'root',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(again.status, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /wrote .*config\.json/);

  const launcher = spawn(
    process.execPath,
    [join(prefix, 'launcher.mjs'), '--config', join(configDir, 'config.json'), '--state-dir', stateDir],
    {
      env: {
        ...process.env,
        METER_GATEWAY_HTTP_HOST: '127.0.0.1',
        METER_GATEWAY_HTTP_PORT: '0',
        METER_GATEWAY_SERVICES_BROADCAST: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  launcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  launcher.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.on('exit', (code) => resolve(code)));
  try {
    await waitFor(
      'the launched daemon to report READY',
      () => output,
      (text) => /reported READY/.test(text),
      {
        deadlineMs: 30_000,
      },
    );
    const port = /running \(HTTP on 127\.0\.0\.1:(\d+)\)/.exec(output)?.[1];
    const report = await fetch(`http://127.0.0.1:${port}/api/v1/report`);
    assert.equal(report.status, 200);
    await report.body?.cancel();
  } finally {
    launcher.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output);
});
