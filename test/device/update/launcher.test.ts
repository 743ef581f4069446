import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { registerUpdateRoutes } from '../../../src/http/routes/update.js';
import { repoRoot } from '../../helpers/environment.js';
import { startHttpContext } from '../../helpers/http-context.js';
import {
  buildFakeBundle,
  installRootWith,
  newSigningKey,
  writeFakeApp,
  type AppBehaviour,
} from './fake-release.js';
import { waitFor } from '../../helpers/wait.js';

/** The launcher from source through tsx, or compiled when the tests run from dist/. */
function launcherCommand(): string[] {
  if (fileURLToPath(import.meta.url).endsWith('.ts'))
    return ['--import', 'tsx', join(repoRoot, 'scripts', 'launcher.ts')];
  return [join(repoRoot, 'dist', 'scripts', 'launcher.js')];
}

interface Launched {
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function launch(
  root: string,
  stateDir: string,
  readyTimeoutSeconds: number,
  notifySocket?: string,
): Launched {
  const env = { ...process.env };
  delete env.NOTIFY_SOCKET;
  if (notifySocket) env.NOTIFY_SOCKET = notifySocket;
  const child = spawn(
    process.execPath,
    [
      ...launcherCommand(),
      '--launcher-root',
      root,
      '--launcher-ready-timeout',
      String(readyTimeoutSeconds),
      '--config',
      '/nonexistent.json',
      '--state-dir',
      stateDir,
    ],
    // own process group: cleanup can kill the launcher and any app it left behind together
    { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    process: child,
    output: () => output,
    exited: once(child, 'exit').then(([code]) => code as number | null),
  };
}

/** Waits until `check` holds; on timeout the error shows the launcher's output. */
async function waitForLauncher(check: () => boolean, what: string, launched: Launched): Promise<void> {
  await waitFor(
    what,
    () => check() || launched.output(),
    (seen) => seen === true,
    { deadlineMs: 60_000 },
  );
}

/** The app's PID as the fake app recorded it. */
function pidOf(stateDir: string, version: string): number {
  return Number(readFileSync(join(stateDir, `ran-${version}`), 'utf8'));
}

/** The READY file (the launcher removes it before each start) holds the PID of this version's app. */
function readyFrom(stateDir: string, version: string): boolean {
  try {
    return readFileSync(join(stateDir, 'ready'), 'utf8').trim() === String(pidOf(stateDir, version));
  } catch {
    return false;
  }
}

function addRelease(root: string, id: string, version: string, behaviour: AppBehaviour): void {
  writeFakeApp(join(root, 'releases', id), version, behaviour);
}

/** Kills the launcher's whole process group (test cleanup; an app left running would hold the pipes). */
function killAll(launched: Launched | undefined): void {
  try {
    if (launched?.process.pid) process.kill(-launched.process.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function stop(launched: Launched): Promise<number | null> {
  launched.process.kill('SIGTERM');
  return launched.exited;
}

for (const behaviour of ['crashes', 'hangs'] as const) {
  test(`a new release that ${behaviour} before READY is rolled back to the previous one`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'launcher-'));
    const stateDir = join(work, 'state');
    mkdirSync(stateDir);
    const root = installRootWith(work, '1.0.0', 'works');
    addRelease(root, '2.0.0-bad', '2.0.0', behaviour);
    rmSync(join(root, 'current'));
    symlinkSync('releases/2.0.0-bad', join(root, 'current'));
    symlinkSync('releases/1.0.0-000000000000', join(root, 'previous'));
    // A hanging release is given up after the READY timeout: long enough for node to start the fake
    // app (and write its ran- file) on a loaded machine, short enough to keep the test quick.
    const launched = launch(root, stateDir, behaviour === 'hangs' ? 5 : 60);
    try {
      await waitForLauncher(
        () => existsSync(join(stateDir, 'ran-1.0.0')),
        'the previous release to run',
        launched,
      );
      assert.ok(existsSync(join(stateDir, 'ran-2.0.0')), 'the new release was tried first');
      assert.equal(readlinkSync(join(root, 'current')), 'releases/1.0.0-000000000000');
      assert.equal(readFileSync(join(root, 'failed'), 'utf8').trim(), '2.0.0-bad');
      // `confirmed` already names 1.0.0 before the rollback: READY is the app's own file with its PID.
      await waitForLauncher(
        () =>
          readyFrom(stateDir, '1.0.0') &&
          readFileSync(join(root, 'confirmed'), 'utf8').trim() === '1.0.0-000000000000',
        'READY of 1.0.0',
        launched,
      );
      assert.match(launched.output(), /rolling back to 1\.0\.0-000000000000/);
      assert.equal(await stop(launched), 0);
      assert.ok(existsSync(join(stateDir, 'stopped-1.0.0')), 'SIGTERM reached the app');
    } finally {
      killAll(launched);
      rmSync(work, { recursive: true, force: true });
    }
  });
}

test('a new release that exits 78 (HTTP port taken) before READY is not rolled back: the launcher exits 78', async () => {
  const work = mkdtempSync(join(tmpdir(), 'launcher-'));
  const stateDir = join(work, 'state');
  mkdirSync(stateDir);
  const root = installRootWith(work, '1.0.0', 'works');
  addRelease(root, '2.0.0-good', '2.0.0', 'port-taken');
  rmSync(join(root, 'current'));
  symlinkSync('releases/2.0.0-good', join(root, 'current'));
  symlinkSync('releases/1.0.0-000000000000', join(root, 'previous'));
  const launched = launch(root, stateDir, 60);
  try {
    assert.equal(await launched.exited, 78, launched.output());
    assert.equal(readlinkSync(join(root, 'current')), 'releases/2.0.0-good', 'current stays');
    assert.equal(readlinkSync(join(root, 'previous')), 'releases/1.0.0-000000000000', 'previous stays');
    assert.equal(existsSync(join(root, 'failed')), false, 'not recorded as a failed release');
    assert.equal(existsSync(join(stateDir, 'ran-1.0.0')), false, 'the previous release was not started');
    assert.match(launched.output(), /2\.0\.0-good exited with 78: a configuration or host problem/);
    assert.doesNotMatch(launched.output(), /rolling back/);
  } finally {
    killAll(launched);
    rmSync(work, { recursive: true, force: true });
  }
});

test('a release that reports READY is confirmed and later crashes are not rolled back', async () => {
  const work = mkdtempSync(join(tmpdir(), 'launcher-'));
  const stateDir = join(work, 'state');
  mkdirSync(stateDir);
  const root = installRootWith(work, '1.0.0', 'works');
  addRelease(root, '2.0.0-good', '2.0.0', 'works');
  rmSync(join(root, 'current'));
  symlinkSync('releases/2.0.0-good', join(root, 'current'));
  symlinkSync('releases/1.0.0-000000000000', join(root, 'previous'));
  const launched = launch(root, stateDir, 60);
  try {
    await waitForLauncher(
      () =>
        existsSync(join(root, 'confirmed')) &&
        readFileSync(join(root, 'confirmed'), 'utf8').trim() === '2.0.0-good',
      'READY of 2.0.0',
      launched,
    );
    assert.equal(existsSync(join(stateDir, 'ran-1.0.0')), false);
    assert.equal(await stop(launched), 0);
  } finally {
    killAll(launched);
  }
  // the confirmed release now fails at start: the launcher exits with its code for systemd to retry
  writeFakeApp(join(root, 'releases', '2.0.0-good'), '2.0.0', 'crashes');
  const again = launch(root, stateDir, 60);
  try {
    assert.equal(await again.exited, 1);
    assert.equal(readlinkSync(join(root, 'current')), 'releases/2.0.0-good');
    assert.equal(existsSync(join(root, 'failed')), false);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('end to end: an uploaded bundle whose app fails at start is rolled back by the launcher', async () => {
  const work = mkdtempSync(join(tmpdir(), 'launcher-e2e-'));
  const stateDir = join(work, 'state');
  mkdirSync(stateDir);
  const root = installRootWith(work, '1.0.0', 'works');
  const key = newSigningKey();
  let restarted = '';
  const http = await startHttpContext({
    env: { METER_GATEWAY_UPDATE_PUBLIC_KEY: key.publicKeyPem },
    routes: (router, ctx) => {
      ctx.requestRestart = (reason) => (restarted = reason);
      registerUpdateRoutes(router, ctx, { installRoot: root });
    },
  });
  let launched: Launched | undefined;
  try {
    const form = new FormData();
    form.append(
      'file',
      new Blob([readFileSync(await buildFakeBundle(work, '2.0.0', 'crashes', key))]),
      'bundle.bin',
    );
    const response = await fetch(`${http.baseUrl}/load`, { method: 'POST', body: form });
    assert.equal(response.status, 200);
    assert.equal(restarted, 'firmware update to 2.0.0');
    const newRelease = readlinkSync(join(root, 'current'));
    assert.match(newRelease, /^releases\/2\.0\.0-/);

    launched = launch(root, stateDir, 60);
    const running = launched;
    await waitForLauncher(
      () => existsSync(join(stateDir, 'ran-1.0.0')) && existsSync(join(stateDir, 'ready')),
      'the rollback to 1.0.0',
      running,
    );
    assert.ok(existsSync(join(stateDir, 'ran-2.0.0')));
    assert.equal(readlinkSync(join(root, 'current')), 'releases/1.0.0-000000000000');
    assert.equal(readFileSync(join(root, 'failed'), 'utf8').trim(), newRelease.slice('releases/'.length));
    assert.equal(await stop(running), 0);
  } finally {
    killAll(launched);
    await http.close();
    rmSync(work, { recursive: true, force: true });
  }
});

async function uploadBundle(baseUrl: string, bundle: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(bundle)]), 'bundle.bin');
  return (await fetch(`${baseUrl}/load`, { method: 'POST', body: form })).status;
}

test('after an update the app exits with 0: without systemd the launcher starts the new version itself', async () => {
  const work = mkdtempSync(join(tmpdir(), 'launcher-update-'));
  const stateDir = join(work, 'state');
  mkdirSync(stateDir);
  const root = installRootWith(work, '1.0.0', 'works');
  const key = newSigningKey();
  const http = await startHttpContext({
    env: { METER_GATEWAY_UPDATE_PUBLIC_KEY: key.publicKeyPem },
    routes: (router, ctx) => {
      // what the daemon does on requestRestart: stop and exit with code 0 (the fake app exits 0 on SIGTERM)
      ctx.requestRestart = () => process.kill(pidOf(stateDir, '1.0.0'), 'SIGTERM');
      registerUpdateRoutes(router, ctx, { installRoot: root });
    },
  });
  const launched = launch(root, stateDir, 60);
  try {
    await waitForLauncher(() => existsSync(join(stateDir, 'ready')), 'READY of 1.0.0', launched);
    assert.equal(await uploadBundle(http.baseUrl, await buildFakeBundle(work, '2.0.0', 'works', key)), 200);
    await waitForLauncher(
      () => readFileSync(join(root, 'confirmed'), 'utf8').startsWith('2.0.0-'),
      'READY of 2.0.0',
      launched,
    );
    assert.ok(existsSync(join(stateDir, 'stopped-1.0.0')));
    assert.match(readlinkSync(join(root, 'current')), /^releases\/2\.0\.0-/);
    assert.equal(launched.process.exitCode, null, 'the launcher is still running');
    assert.equal(await stop(launched), 0);
  } finally {
    killAll(launched);
    await http.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('under systemd (NOTIFY_SOCKET set) a clean exit of the app ends the launcher with 0 for Restart=always', async () => {
  const work = mkdtempSync(join(tmpdir(), 'launcher-systemd-'));
  const stateDir = join(work, 'state');
  mkdirSync(stateDir);
  const root = installRootWith(work, '1.0.0', 'works');
  const launched = launch(root, stateDir, 60, join(work, 'notify.sock'));
  try {
    await waitForLauncher(() => existsSync(join(stateDir, 'ready')), 'READY of 1.0.0', launched);
    process.kill(pidOf(stateDir, '1.0.0'), 'SIGTERM');
    assert.equal(await launched.exited, 0);
    assert.doesNotMatch(launched.output(), /starting current again/);
  } finally {
    killAll(launched);
    rmSync(work, { recursive: true, force: true });
  }
});

test('launcher arguments: its own options are taken out, the rest goes to the app', async () => {
  const { parseLauncherArgs } = await import('../../../scripts/launcher.js');
  const options = parseLauncherArgs(
    [
      '--config',
      '/etc/mg.json',
      '--launcher-root=/opt/mg',
      '--state-dir',
      '/var/lib/mg',
      '--launcher-ready-timeout',
      '5',
    ],
    '/default',
  );
  assert.deepEqual(options, {
    root: '/opt/mg',
    readyTimeoutMs: 5000,
    appArgs: ['--config', '/etc/mg.json', '--state-dir', '/var/lib/mg'],
    stateDir: '/var/lib/mg',
  });
  assert.equal(parseLauncherArgs([], '/default').root, '/default');
  assert.throws(() => parseLauncherArgs(['--launcher-ready-timeout', 'soon'], '/d'));
});
