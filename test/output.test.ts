import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../src/config/types.js';
import { createAppContext, type AppContext } from '../src/context.js';
import { runOutput, watchesPath, type ConfigPath, type Output, type OutputView } from '../src/output.js';
import { linesLogger } from './helpers/log-lines.js';
import { registerConfigFormats } from '../src/daemon.js';

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
): Output<SdSlice> & { views: OutputView<SdSlice>[]; events: string[] } {
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
    reconcile(view) {
      views.push(view);
      events.push('reconcile');
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

test('an output is started, reconciled with its slice, and reconciled again only for changes it watches', async () => {
  const { ctx, close } = context();
  const output = recordingOutput('recorder');
  const running = runOutput(ctx, output);
  try {
    await running.start();
    assert.deepEqual(output.events, ['start', 'reconcile']);
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
    assert.deepEqual(output.events, ['start', 'reconcile', 'reconcile', 'stop'], 'nothing after stop');
  } finally {
    close();
  }
});

test('the license gate: under FREE a licensed output is reconciled as blocked, an unlicensed one is not', async () => {
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

test('an output that fails to apply a change fails alone: named in the write result, counted, the others still applied', async () => {
  const { ctx, lines, close } = context();
  const throwing = recordingOutput('throwing', { fail: 'throw' });
  const rejecting = recordingOutput('rejecting', { fail: 'reject' });
  const healthy = recordingOutput('healthy');
  try {
    for (const output of [throwing, rejecting, healthy]) await runOutput(ctx, output).start();
    const result = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 7]]));
    assert.ok(result.ok);
    assert.deepEqual(result.failed, [
      { owner: 'throwing', event: 'change', message: 'throwing cannot apply' },
    ]);
    assert.equal(
      healthy.views.at(-1)!.slice.frequency,
      7,
      'the output after the failing ones got the change',
    );
    await new Promise((resolve) => setImmediate(resolve));
    // A throw is the config store's listener failure (the daemon shows it per output); a rejection
    // the runner counts in the service states itself.
    assert.equal(ctx.config.failureCounts.get('throwing'), 1);
    assert.equal(ctx.services.snapshot().rejecting?.listener_errors, 1);
    assert.ok(
      lines.some((line) => line.includes('rejecting failed to apply a settings change: rejecting lost it')),
    );
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
