import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireStateLock, StateLockError, type StateLockProbe } from '../../src/config/state-lock.js';

function probe(alive: Record<number, string | undefined>): StateLockProbe {
  return { alive: (pid) => pid in alive, commandOf: (pid) => alive[pid] };
}

test('the lock file holds this process id, is created with the folder, and goes with release', () => {
  const root = mkdtempSync(join(tmpdir(), 'mg-state-lock-'));
  try {
    const dir = join(root, 'state');
    const lock = acquireStateLock(dir, probe({}));
    assert.equal(readFileSync(join(dir, 'daemon.lock'), 'utf8'), `${process.pid}\n`);
    lock.release();
    assert.equal(existsSync(join(dir, 'daemon.lock')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a lock held by a running Node process is refused, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-state-lock-'));
  try {
    writeFileSync(join(dir, 'daemon.lock'), '4242\n');
    assert.throws(
      () => acquireStateLock(dir, probe({ 4242: 'node dist/src/main.js --state-dir state' })),
      (error: unknown) =>
        error instanceof StateLockError &&
        error.holder === 4242 &&
        /in use by another meter-gateway, process 4242 \(node dist\/src\/main\.js --state-dir state\)/.test(
          error.message,
        ) &&
        /--state-dir DIR/.test(error.message),
    );
    assert.equal(readFileSync(join(dir, 'daemon.lock'), 'utf8'), '4242\n', 'the holder keeps its lock');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock of a dead process, of a reused id, or without an id is taken over', () => {
  for (const [content, alive] of [
    ['4242\n', {}],
    ['4242\n', { 4242: '/usr/sbin/cron -f' }],
    ['garbage', {}],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'mg-state-lock-'));
    try {
      writeFileSync(join(dir, 'daemon.lock'), content);
      acquireStateLock(dir, probe(alive)).release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
