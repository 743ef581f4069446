import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backoff } from '../../src/backoff.js';
import { ScriptRunner } from '../../src/device/scripting.js';
import { kernelEthernetInfo } from '../../src/device/wifi/ethernet-info.js';
import { hostNetworkInfo } from '../../src/device/wifi/wifi-info.js';
import { registerSystemRoutes } from '../../src/http/routes/system.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { runOutput } from '../../src/output-runner.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';

test('the script gets readings on stdin and the API address, and is restarted with backoff after a crash', async () => {
  const h = await startHttpContext({ env: { METER_GATEWAY_LICENSE_TYPE: 'PLUS' } });
  const dir = mkdtempSync(join(tmpdir(), 'mg-script-'));
  const out = join(dir, 'script-out.jsonl');
  const script = join(dir, 'script.mjs');
  // Records what it gets, then exits with 3 after the second reading (a crash).
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
     import { createInterface } from 'node:readline';
     appendFileSync(${JSON.stringify(out)}, JSON.stringify({ api: process.env.METER_GATEWAY_API }) + '\\n');
     let n = 0;
     for await (const line of createInterface({ input: process.stdin })) {
       appendFileSync(${JSON.stringify(out)}, line + '\\n');
       if (++n === 2) process.exit(3);
     }`,
  );
  const runner = new ScriptRunner(h.ctx, h.ctx.logger, { runDelayMs: 10, backoff: new Backoff(50, 200) });
  const runnerOutput = runOutput(h.ctx, runner);
  try {
    await runnerOutput.start();
    assert.equal(h.ctx.services.get('scripting')?.state, 'disabled', 'off until auto_run');
    assert.equal(h.ctx.services.get('scripting')?.script, 'IDLE');
    assert.equal(h.ctx.config.apply(new Map<string, unknown>([['services.berry.auto_run', true]])).ok, true);
    assert.equal(
      h.ctx.config.apply(new Map<string, unknown>([['scripting.file', script]])).ok,
      false,
      'scripting.file is daemon-only',
    );
    await runnerOutput.stop();
  } finally {
    await h.close();
  }

  const h2 = await startHttpContext({
    env: {
      METER_GATEWAY_LICENSE_TYPE: 'PLUS',
      METER_GATEWAY_SCRIPTING_FILE: script,
      METER_GATEWAY_SERVICES_BERRY_AUTO_RUN: 'true',
    },
    routes: (router, ctx) =>
      registerSystemRoutes(router, ctx, hostNetworkInfo, () => kernelEthernetInfo('/sys/class/net', 'eth0')),
  });
  // The device-compatible services.berry of /api/v1/system, from the fact `script`.
  const berry = async () =>
    ((await (await fetch(`${h2.baseUrl}/api/v1/system`)).json()) as { services: { berry: unknown } }).services
      .berry;
  const runner2 = new ScriptRunner(h2.ctx, h2.ctx.logger, { runDelayMs: 10, backoff: new Backoff(50, 200) });
  const runner2Output = runOutput(h2.ctx, runner2);
  try {
    await runner2Output.start();
    await waitFor(
      'RUNNING',
      () => h2.ctx.services.get('scripting'),
      (s) => s?.state === 'running' && s.script === 'RUNNING',
    );
    const lines = () => {
      try {
        return readFileSync(out, 'utf8').trim().split('\n');
      } catch {
        return [];
      }
    };
    await waitFor('the script to start', lines, (seen) => seen.length >= 1);
    assert.deepEqual(JSON.parse(lines()[0]!), { api: h2.baseUrl });
    h2.ctx.store.ingest(syntheticReading(h2.clock.now(), 1));
    h2.ctx.store.ingest(syntheticReading(h2.clock.now(), 2));
    await waitFor(
      'the crash',
      () => h2.ctx.services.get('scripting'),
      (s) => s?.restarts === 1,
    );
    assert.equal(JSON.parse(lines()[1]!).P_In, 2.412 + 1 / 1000);
    assert.equal(JSON.parse(lines()[2]!).P_In, 2.412 + 2 / 1000);
    assert.match(String(h2.ctx.services.get('scripting')?.error), /code 3/);
    await waitFor('the restart', lines, (seen) => seen.length >= 4);
    assert.equal(h2.ctx.services.get('scripting')?.script, 'RUNNING');
    assert.equal(h2.ctx.services.get('scripting')?.state, 'running');
    assert.deepEqual(await berry(), { state: 'RUNNING', execution_status: { state: 'RUNNING' } });

    assert.equal(
      h2.ctx.config.apply(new Map<string, unknown>([['services.berry.auto_run', false]])).ok,
      true,
    );
    assert.equal(h2.ctx.services.get('scripting')?.state, 'disabled');
    assert.equal(h2.ctx.services.get('scripting')?.script, 'IDLE');
    assert.deepEqual(await berry(), { state: 'IDLE', execution_status: { state: 'IDLE' } });
  } finally {
    await runner2Output.stop();
    await h2.close();
  }
});

test('license FREE keeps the script stopped', async () => {
  const h = await startHttpContext({
    env: {
      METER_GATEWAY_LICENSE_TYPE: 'FREE',
      METER_GATEWAY_SCRIPTING_FILE: '/nonexistent.mjs',
      METER_GATEWAY_SERVICES_BERRY_AUTO_RUN: 'true',
    },
  });
  const runner = new ScriptRunner(h.ctx, h.ctx.logger, { runDelayMs: 1 });
  const runnerOutput = runOutput(h.ctx, runner);
  try {
    await runnerOutput.start();
    await quietPeriod(50); // proves an absence: the script does not start (run delay 1 ms)
    assert.deepEqual(h.ctx.services.get('scripting'), {
      state: 'blocked',
      script: 'IDLE',
      restarts: 0,
      skipped_readings: 0,
    });
  } finally {
    await runnerOutput.stop();
    await h.close();
  }
});
