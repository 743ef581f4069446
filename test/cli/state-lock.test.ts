// Two daemons on one state folder (docs/architecture.md#state-folder-lock): the second stops before
// it opens anything there, naming the first; a lock left by a killed daemon is taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, startDaemonProcess } from '../helpers/daemon-process.js';

test('a second daemon on the same state folder exits 75 naming the first, and opens nothing there', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'mg-lock-'));
  const first = await startDaemonProcess(state);
  t.after(() => first.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  assert.equal(readFileSync(join(state, 'daemon.lock'), 'utf8').trim(), String(first.child.pid));
  // A temp file of an interrupted settings write: a daemon that opened the state files would delete it.
  writeFileSync(join(state, 'settings.json.tmp'), '{}');

  const second = startDaemon(state);
  assert.equal(await second.exited, 75, second.output());
  assert.match(
    second.output(),
    new RegExp(
      `state folder .* is in use by another meter-gateway, process ${first.child.pid} \\(.*node.*\\)`,
    ),
  );
  assert.doesNotMatch(second.output(), /history|listening/);
  assert.ok(existsSync(join(state, 'settings.json.tmp')), 'the second daemon recovered the state files');
  assert.equal((await fetch(`${first.baseUrl}/api/v1/report`)).status, 200, 'the first daemon goes on');

  await first.stop();
  assert.equal(existsSync(join(state, 'daemon.lock')), false, 'a clean stop removes the lock');
});

test('a lock left by a killed daemon is taken over', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'mg-lock-stale-'));
  const killed = await startDaemonProcess(state);
  killed.child.kill('SIGKILL');
  await killed.exited;
  assert.equal(readFileSync(join(state, 'daemon.lock'), 'utf8').trim(), String(killed.child.pid));

  const next = await startDaemonProcess(state);
  t.after(() => next.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  assert.equal(readFileSync(join(state, 'daemon.lock'), 'utf8').trim(), String(next.child.pid));
});

test('a daemon that does not report listening in time is killed by the helper that gave up on it', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'mg-lock-given-up-'));
  // A deadline no start can meet: the helper gives up while the daemon is still starting.
  await assert.rejects(startDaemonProcess(state, {}, 1), /waiting for the daemon to listen/);
  // Left running, it would hold the state folder (the next start exits 75) and keep this file's
  // process alive after its tests.
  const next = await startDaemonProcess(state);
  t.after(() => next.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  assert.equal(readFileSync(join(state, 'daemon.lock'), 'utf8').trim(), String(next.child.pid));
});
