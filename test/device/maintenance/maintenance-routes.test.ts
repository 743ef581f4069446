import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerMaintenanceRoutes } from '../../../src/http/routes/maintenance.js';
import { RestartGuard } from '../../../src/device/maintenance/restart-guard.js';
import { startHttpContext, testClock, type HttpTestContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';

interface Rig {
  http: HttpTestContext;
  restarts: string[];
  restarted: Promise<string>;
}

async function startRig(env: Record<string, string> = {}): Promise<Rig> {
  const restarts: string[] = [];
  let resolveRestart: (reason: string) => void = () => undefined;
  const restarted = new Promise<string>((resolve) => (resolveRestart = resolve));
  const http = await startHttpContext({
    env,
    routes: (router, ctx) => {
      ctx.requestRestart = (reason) => {
        restarts.push(reason);
        resolveRestart(reason);
      };
      registerMaintenanceRoutes(router, ctx);
    },
  });
  return { http, restarts, restarted };
}

test('reboot answers 204, then the daemon is asked to restart; again within 60 s is 429 with Retry-After', async () => {
  const rig = await startRig();
  rig.http.clock.freeze();
  try {
    const first = await fetch(`${rig.http.baseUrl}/api/v1/reboot`, { method: 'POST' });
    assert.equal(first.status, 204);
    assert.equal(await first.text(), '');
    assert.match(await rig.restarted, /reboot/);

    rig.http.clock.advance(59_000);
    const second = await fetch(`${rig.http.baseUrl}/api/v1/reboot`, { method: 'POST' });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('retry-after'), '1');
    const body = (await second.json()) as {
      error: string;
      message: string;
      details: Record<string, unknown>;
    };
    assert.equal(body.error, 'too_many_requests');
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(body.details, { retry_after: 1 });
    assert.equal(rig.restarts.length, 1, 'a refused reboot does not restart');

    rig.http.clock.advance(1_000);
    assert.equal((await fetch(`${rig.http.baseUrl}/api/v1/reboot`, { method: 'POST' })).status, 204);
    await waitFor(
      'the second restart',
      () => rig.restarts,
      (restarts) => restarts.length === 2,
    );
  } finally {
    await rig.http.close();
  }
});

test('restore deletes every state file before answering 204 and restarting; a repeat is 429', async () => {
  const rig = await startRig();
  const { ctx, stateDir } = rig.http;
  rig.http.clock.freeze();
  try {
    const result = ctx.config.apply(
      new Map<string, unknown>([
        ['system.name', 'kitchen'],
        ['system.password', 'secret'],
        ['wifi.sta.name', 'home'],
        ['mqtt.url', 'mqtt://127.0.0.1:1883'],
        ['modbus.layout', [{ start_address: 0, registers: [{ id: '1.8.0' }] }]],
      ]),
    );
    assert.equal(result.ok, true);
    for (const file of ['settings', 'secrets', 'wifi', 'mqtt', 'modbus'])
      assert.ok(existsSync(join(stateDir, `${file}.json`)), file);

    const response = await fetch(`${rig.http.baseUrl}/api/v1/restore`, { method: 'POST' });
    assert.equal(response.status, 204);
    for (const file of ['settings', 'secrets', 'wifi', 'mqtt', 'modbus'])
      assert.equal(existsSync(join(stateDir, `${file}.json`)), false, file);
    assert.match(await rig.restarted, /restore/);

    const again = await fetch(`${rig.http.baseUrl}/api/v1/restore`, { method: 'POST' });
    assert.equal(again.status, 429);
    assert.equal(((await again.json()) as { error: string }).error, 'too_many_requests');
    assert.equal(again.headers.get('retry-after'), '60');
    // reboot has its own limit
    assert.equal((await fetch(`${rig.http.baseUrl}/api/v1/reboot`, { method: 'POST' })).status, 204);
  } finally {
    await rig.http.close();
  }
});

test('a configured restart command runs through /bin/sh instead of the daemon exit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'restart-command-'));
  const marker = join(dir, 'restarted');
  const rig = await startRig({
    METER_GATEWAY_DEVICE_RESTART_COMMAND: `printf '%s' "$RESTART_REASON" > '${marker}'`,
  });
  try {
    assert.equal((await fetch(`${rig.http.baseUrl}/api/v1/reboot`, { method: 'POST' })).status, 204);
    await waitFor('the restart command', () => existsSync(marker) && readFileSync(marker, 'utf8') !== '');
    assert.equal(readFileSync(marker, 'utf8'), 'reboot requested through the API');
    assert.deepEqual(rig.restarts, []);
  } finally {
    await rig.http.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failing restart command falls back to restarting the daemon', async () => {
  const rig = await startRig({ METER_GATEWAY_DEVICE_RESTART_COMMAND: 'echo no permission >&2; exit 3' });
  try {
    assert.equal((await fetch(`${rig.http.baseUrl}/api/v1/restore`, { method: 'POST' })).status, 204);
    assert.match(await rig.restarted, /restore/);
    assert.ok(rig.http.logLines.some((line) => line.includes('no permission')));
  } finally {
    await rig.http.close();
  }
});

test('the 60 s limit survives the restart it causes and ignores a clock set back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'restart-guard-'));
  try {
    const clock = testClock(1_000_000);
    clock.freeze();
    assert.deepEqual(new RestartGuard(dir, clock.now).claim('reboot'), { ok: true });
    clock.advance(30_000);
    const restarted = new RestartGuard(dir, clock.now);
    assert.deepEqual(restarted.claim('reboot'), { ok: false, retryAfterMs: 30_000 });
    assert.deepEqual(restarted.claim('restore'), { ok: true });
    const setBack = testClock(500_000);
    setBack.freeze();
    assert.deepEqual(new RestartGuard(dir, setBack.now).claim('reboot'), { ok: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
