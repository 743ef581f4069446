import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../src/config/types.js';
import { createAppContext, type AppContext } from '../src/context.js';
import { runOutput, watchesPath } from '../src/output-runner.js';
import { type ConfigPath, type DeclaredOutput, type OutputView } from '../src/output.js';
import { linesLogger } from './helpers/log-lines.js';
import { registerConfigFormats } from '../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

interface SdSlice {
  enable: boolean;
  frequency: number;
}

/** An output on services.sd that records every view it is given. */
function recordingOutput(
  name: string,
  options: { license?: 'PLUS'; watches?: readonly ConfigPath[]; fail?: 'throw' | 'reject' } = {},
): DeclaredOutput<SdSlice, { port: number }, string> & { views: OutputView<SdSlice>[]; events: string[] } {
  const views: OutputView<SdSlice>[] = [];
  const events: string[] = [];
  return {
    name,
    required: false,
    watches: options.watches ?? ['services.sd'],
    ...(options.license ? { license: options.license } : {}),
    views,
    events,
    select: (config: AppConfig) => ({ ...config.services.sd }),
    apply(view) {
      views.push(view);
      events.push('apply');
      if (views.length > 1 && options.fail === 'throw') throw new Error(`${name} cannot apply`);
      if (views.length > 1 && options.fail === 'reject') return Promise.reject(new Error(`${name} lost it`));
      return undefined;
    },
    async start() {
      events.push('start');
    },
    async stop() {
      events.push('stop');
    },
  };
}

function context(env: Record<string, string> = {}): { ctx: AppContext; lines: string[]; close(): void } {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-output-'));
  const lines: string[] = [];
  const ctx = createAppContext({ env, stateDir, logger: linesLogger(lines) });
  return {
    ctx,
    lines,
    close() {
      ctx.store.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

test('a changed leaf counts for the node it lies at or under, never for a sibling with the same prefix', () => {
  assert.ok(watchesPath(['services.sd'], 'services.sd.enable'));
  assert.ok(watchesPath(['services.log'], 'services.log'));
  assert.ok(!watchesPath(['services.log'], 'services.log_level'));
  assert.ok(!watchesPath(['services.sd'], 'services.modbus.port'));
});

test('an output is started, applied with its slice, and applied again only for changes it watches', async () => {
  const { ctx, close } = context();
  const output = recordingOutput('recorder');
  const running = runOutput(ctx, output);
  try {
    await running.start();
    assert.deepEqual(output.events, ['start', 'apply']);
    assert.deepEqual(output.views[0], {
      slice: { enable: false, frequency: ctx.config.config.services.sd.frequency },
    });

    ctx.config.apply(new Map([['services.broadcast', !ctx.config.config.services.broadcast]]));
    assert.equal(output.views.length, 1, 'a change of another setting does not reach the output');

    ctx.config.apply(new Map<string, unknown>([['services.sd.enable', true]]));
    assert.equal(output.views.length, 2);
    assert.equal(output.views[1]!.slice.enable, true);
    assert.equal(output.views[1]!.blocked, undefined, 'no license needed, none checked');

    await running.stop();
    ctx.config.apply(new Map<string, unknown>([['services.sd.enable', false]]));
    assert.deepEqual(output.events, ['start', 'apply', 'apply', 'stop'], 'nothing after stop');
  } finally {
    close();
  }
});

test('the license gate: under FREE a licensed output is applied as blocked, an unlicensed one is not', async () => {
  const free = context({ METER_GATEWAY_LICENSE_TYPE: 'FREE' });
  const plus = context({ METER_GATEWAY_LICENSE_TYPE: 'PLUS' });
  try {
    const licensed = recordingOutput('licensed', { license: 'PLUS' });
    const open = recordingOutput('open');
    const licensedOnPlus = recordingOutput('licensed on PLUS', { license: 'PLUS' });
    for (const [ctx, output] of [
      [free.ctx, licensed],
      [free.ctx, open],
      [plus.ctx, licensedOnPlus],
    ] as const)
      await runOutput(ctx, output).start();
    assert.equal(licensed.views[0]!.blocked, 'license FREE');
    assert.equal(open.views[0]!.blocked, undefined);
    assert.equal(licensedOnPlus.views[0]!.blocked, undefined);
  } finally {
    free.close();
    plus.close();
  }
});

test('an output that fails to apply a change fails alone: named in the write result, counted, shown as retrying, the others still applied', async () => {
  const { ctx, close } = context();
  const throwing = recordingOutput('throwing', { fail: 'throw' });
  const rejecting = recordingOutput('rejecting', { fail: 'reject' });
  const healthy = recordingOutput('healthy');
  try {
    for (const output of [throwing, rejecting, healthy]) await runOutput(ctx, output).start();
    const result = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 7]]));
    assert.ok(result.ok);
    assert.equal(
      healthy.views.at(-1)!.slice.frequency,
      7,
      'the output after the failing ones got the change',
    );
    // A synchronous throw and an asynchronous rejection are both failures of the write.
    assert.deepEqual((await result.settled).map((failure) => [failure.owner, failure.message]).sort(), [
      ['rejecting', 'rejecting lost it'],
      ['throwing', 'throwing cannot apply'],
    ]);
    assert.equal(ctx.config.failureCounts.get('throwing'), 1);
    assert.equal(ctx.config.failureCounts.get('rejecting'), 1);
    assert.deepEqual(ctx.services.get('rejecting'), {
      state: 'retrying',
      error: 'rejecting lost it',
      retry_in_ms: 1000,
    });
    assert.equal(ctx.services.get('throwing')?.error, 'throwing cannot apply');
  } finally {
    close();
  }
});

test('an apply that succeeds after a failure takes the failure fields away again', async () => {
  const { ctx, close } = context();
  let fail = false;
  const output: DeclaredOutput<SdSlice, { port: number }, string> = {
    ...recordingOutput('flaky'),
    apply: () => (fail ? Promise.reject(new Error('port taken')) : { port: 1 }),
  };
  try {
    await runOutput(ctx, output).start();
    assert.deepEqual(ctx.services.get('flaky'), { state: 'running', port: 1 });
    fail = true;
    const failed = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 9]]));
    assert.ok(failed.ok);
    assert.equal((await failed.settled).length, 1);
    assert.deepEqual(ctx.services.get('flaky'), {
      state: 'retrying',
      error: 'port taken',
      port: 1,
      retry_in_ms: 1000,
    });
    fail = false;
    const healed = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 10]]));
    assert.ok(healed.ok);
    assert.deepEqual(await healed.settled, []);
    assert.deepEqual(ctx.services.get('flaky'), { state: 'running', port: 1 });
  } finally {
    close();
  }
});

test('applies of one output never overlap: changes made while one runs share the next run, which sees the latest settings', async () => {
  const { ctx, close } = context();
  const seen: number[] = [];
  let inside = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const output: DeclaredOutput<SdSlice, { port: number }, string> = {
    ...recordingOutput('slow'),
    async apply(view) {
      inside += 1;
      most = Math.max(most, inside);
      seen.push(view.slice.frequency);
      await new Promise<void>((resolve) => gates.push(resolve));
      inside -= 1;
    },
  };
  try {
    const starting = runOutput(ctx, output).start();
    await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    await starting;
    const writes = [11, 12, 13].map((frequency) => {
      const result = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', frequency]]));
      assert.ok(result.ok);
      return result.settled;
    });
    // The first write started a run at once; the next two wait for one more run, together.
    assert.deepEqual(seen.slice(1), [11]);
    gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.at(-1), 13, 'the queued run reads the latest settings');
    gates.shift()!();
    assert.deepEqual(await Promise.all(writes), [[], [], []]);
    assert.equal(seen.length, 3, 'the start, the first write, one run for the two later writes');
    assert.equal(most, 1, 'never two applies at once');
  } finally {
    close();
  }
});

test('the context factory takes staleness and model from the config; a caller replaces only what it names', () => {
  const { ctx, close } = context({ METER_GATEWAY_METER_TIMEOUT: '7' });
  let now = 1_000_000;
  const other = createAppContext({
    config: ctx.config,
    now: () => now,
    services: ctx.services,
    system: { id: 'A1B2C3D4E5F6' },
  });
  try {
    assert.equal(ctx.system.model, ctx.config.config.device.model);
    assert.match(ctx.system.id, /^[0-9A-F]{12}$/);
    assert.equal(other.system.id, 'A1B2C3D4E5F6');
    assert.equal(other.system.bootTime, 1_000_000);
    assert.equal(other.services, ctx.services);
    assert.equal(other.config, ctx.config);
    assert.equal(other.store.meter.status, 'NOT CONNECTED');
    // Staleness is meter.timeout: a reading 6 s old is fresh, 8 s old is not.
    other.store.ingest({
      receivedAt: now,
      protocol: 'DSMR',
      identity: {},
      values: new Map(),
      mbus: [],
    });
    now += 6_000;
    assert.notEqual(other.store.latest, undefined);
    now += 2_000;
    assert.equal(other.store.latest, undefined);
  } finally {
    other.store.close();
    close();
  }
});
