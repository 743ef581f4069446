import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { AppConfig } from '../../src/config/types.js';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { runOutput } from '../../src/output-runner.js';
import {
  sameSlice,
  type DeclaredOutput,
  type MeterLookup,
  type MeterRef,
  type OutputView,
  type StatusPort,
} from '../../src/output.js';
import type { MeterHandle } from '../../src/reading/meter-registry.js';
import { ReadingStore } from '../../src/reading/store.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

// The runner of declared outputs (docs/architecture.md#output-contract): it alone follows the
// configuration and the meter registry, compares slices, applies real changes, retries failures
// and writes the status line.

registerConfigFormats();

interface Slice {
  enable: boolean;
  port: number;
  meter: MeterRef;
}

interface Facts {
  port: number;
  meter_running: boolean;
  clients: number;
}

type Call = { next: OutputView<Slice>; previous: OutputView<Slice> | undefined };

/** A declared output on services.modbus that serves meter `options.meter` (default `main`). */
function declared(
  options: { fail?: () => string | undefined; license?: 'PLUS'; required?: boolean; meter?: string } = {},
): DeclaredOutput<Slice, Facts, string> & { calls: Call[]; port?: StatusPort<Facts>; stopped: boolean } {
  const calls: Call[] = [];
  const output = {
    name: 'probe',
    required: options.required,
    watches: ['services.modbus'] as const,
    ...(options.license ? { license: options.license } : {}),
    calls,
    port: undefined as StatusPort<Facts> | undefined,
    stopped: false,
    select(config: AppConfig, meters: MeterLookup): Slice {
      return {
        enable: config.services.modbus.enable,
        port: config.services.modbus.port,
        meter: meters.ref(options.meter ?? 'main'),
      };
    },
    enabled: (slice: Slice) => slice.enable,
    async start(port: StatusPort<Facts>) {
      output.port = port;
    },
    async apply(next: OutputView<Slice>, previous: OutputView<Slice> | undefined): Promise<Facts> {
      calls.push({ next, previous });
      const reason = options.fail?.();
      if (reason) throw new Error(reason);
      return { port: next.slice.port, meter_running: next.slice.meter.handle !== undefined, clients: 0 };
    },
    async stop() {
      output.stopped = true;
    },
  };
  return output;
}

function context(t: TestContext, env: Record<string, string> = {}): { ctx: AppContext; lines: string[] } {
  const lines: string[] = [];
  const ctx = createAppContext({
    env: { METER_GATEWAY_SERVICES_MODBUS_PORT: '1502', ...env },
    stateDir: tempDir('mg-declared-', t),
    logger: linesLogger(lines),
  });
  return { ctx, lines };
}

/** A further meter `id` registered in the context's registry (what MetersInput does). */
function registerMeter(ctx: AppContext, id: string): MeterHandle {
  const handle: MeterHandle = {
    id,
    name: id,
    role: 'pv',
    kind: 'polled',
    store: new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'TCP', clock: ctx.clock }),
    source: () => 'tcp://127.0.0.1:1',
  };
  ctx.meters.add(handle);
  return handle;
}

test('slices compare by content; a meter by its id and registered handle; class instances by identity', () => {
  const store = new ReadingStore({ staleAfterMs: 1, meterInterface: 'TCP' });
  const handle = { id: 'pv', store } as unknown as MeterHandle;
  assert.ok(sameSlice({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }));
  assert.ok(!sameSlice({ a: [1, 2] }, { a: [1, 2, 3] }));
  assert.ok(sameSlice({ meter: { id: 'pv', handle } }, { meter: { id: 'pv', handle } }));
  const restarted = { ...handle, store: new ReadingStore({ staleAfterMs: 1, meterInterface: 'TCP' }) };
  assert.ok(!sameSlice({ meter: { id: 'pv', handle } }, { meter: { id: 'pv', handle: restarted } }));
  assert.ok(!sameSlice({ meter: { id: 'pv', handle } }, { meter: { id: 'pv', handle: undefined } }));
  assert.ok(
    !sameSlice(new Date(0), new Date(0)),
    'a class instance is the same only when it is the one object',
  );
});

test('a declared output is applied once at start, then only when its slice really changes; the runner writes its status', async (t) => {
  const { ctx } = context(t);
  const output = declared();
  const running = runOutput(ctx, output);
  await running.start();
  try {
    assert.equal(output.calls.length, 1);
    assert.equal(output.calls[0]!.previous, undefined);
    assert.deepEqual(ctx.services.get('probe'), {
      state: 'disabled',
      port: 1502,
      meter_running: true,
      clients: 0,
    });

    // A write of another leaf under a watched node that leaves the slice as it was: no apply.
    const same = ctx.config.apply(new Map<string, unknown>([['services.modbus.enable', false]]));
    assert.ok(same.ok);
    assert.equal(output.calls.length, 1);

    const enabled = ctx.config.apply(new Map<string, unknown>([['services.modbus.enable', true]]));
    assert.ok(enabled.ok);
    assert.deepEqual(await enabled.settled, []);
    assert.equal(output.calls.length, 2);
    assert.equal(output.calls[1]!.previous, output.calls[0]!.next, 'previous is the view applied before');
    assert.deepEqual(ctx.services.get('probe'), {
      state: 'running',
      port: 1502,
      meter_running: true,
      clients: 0,
    });

    // Live facts and trouble reported by the output go through the runner's one status line.
    output.port!.facts({ clients: 2 });
    assert.equal(ctx.services.get('probe')?.clients, 2);
    output.port!.trouble('peer gone');
    assert.deepEqual(ctx.services.get('probe'), {
      state: 'retrying',
      port: 1502,
      meter_running: true,
      clients: 2,
      error: 'peer gone',
    });
    output.port!.trouble(undefined);
    assert.equal(ctx.services.get('probe')?.state, 'running');
    assert.equal(ctx.services.get('probe')?.error, undefined);
  } finally {
    await running.stop();
  }
  assert.ok(output.stopped);
});

test('a meter added later and an edited meter are followed: a restarted meter is a new handle and is applied; a removed one is applied as missing', async (t) => {
  const { ctx } = context(t);
  const output = declared({ meter: 'pv' });
  const running = runOutput(ctx, output);
  await running.start();
  try {
    assert.equal(output.calls[0]!.next.slice.meter.handle, undefined, 'not registered yet');
    const first = registerMeter(ctx, 'pv');
    await waitForCalls(output, 2);
    assert.equal(output.calls.at(-1)!.next.slice.meter.handle, first, 'a meter added later is served');
    const applies = output.calls.length;

    // MetersInput restarts an edited meter: the old handle goes, a new one comes.
    ctx.meters.remove('pv');
    const second = registerMeter(ctx, 'pv');
    await waitForCalls(output, applies + 1);
    assert.equal(output.calls.at(-1)!.next.slice.meter.handle, second, 'the output serves the new store');

    // Another meter coming and going changes nothing for this output.
    const before = output.calls.length;
    registerMeter(ctx, 'ev');
    ctx.meters.remove('ev');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(output.calls.length, before);

    ctx.meters.remove('pv');
    await waitForCalls(output, before + 1);
    assert.equal(output.calls.at(-1)!.next.slice.meter.handle, undefined);
    assert.equal(
      ctx.services.get('probe')?.meter_running,
      false,
      'a missing meter is a state, not another meter',
    );
  } finally {
    await running.stop();
  }
});

test('a failed apply is retrying with its reason, named by the write; the record goes after the fix; a required start fails as error', async (t) => {
  const { ctx } = context(t);
  let reason: string | undefined;
  const output = declared({ fail: () => reason });
  const running = runOutput(ctx, output);
  await running.start();
  try {
    reason = 'port 1503 is in use';
    const failed = ctx.config.apply(new Map<string, unknown>([['services.modbus.port', 1503]]));
    assert.ok(failed.ok);
    assert.deepEqual(
      (await failed.settled).map((failure) => [failure.owner, failure.message]),
      [['probe', 'port 1503 is in use']],
    );
    assert.deepEqual(ctx.services.get('probe'), {
      state: 'retrying',
      port: 1502,
      meter_running: true,
      clients: 0,
      error: 'port 1503 is in use',
      retry_in_ms: 1000,
    });
    reason = undefined;
    // A settings change while failing tries again at once, even with the same slice.
    const again = ctx.config.apply(new Map<string, unknown>([['services.modbus.port', 1503]]));
    assert.ok(again.ok);
    const retried = ctx.config.apply(new Map<string, unknown>([['services.modbus.enable', true]]));
    assert.ok(retried.ok);
    assert.deepEqual(await retried.settled, []);
    assert.deepEqual(ctx.services.get('probe'), {
      state: 'running',
      port: 1503,
      meter_running: true,
      clients: 0,
    });
  } finally {
    await running.stop();
  }

  const required = declared({ fail: () => 'device missing', required: true });
  const { ctx: second } = context(t);
  await assert.rejects(runOutput(second, required).start(), /device missing/);
  assert.equal(second.services.get('probe')?.state, 'error');
});

test('under FREE a licensed output is applied as blocked and shows it', async (t) => {
  const { ctx } = context(t, {
    METER_GATEWAY_LICENSE_TYPE: 'FREE',
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
  });
  const output = declared({ license: 'PLUS' });
  const running = runOutput(ctx, output);
  await running.start();
  try {
    assert.equal(output.calls[0]!.next.blocked, 'license FREE');
    assert.equal(ctx.services.get('probe')?.state, 'blocked');
  } finally {
    await running.stop();
  }
});

async function waitForCalls(output: { calls: Call[] }, count: number): Promise<void> {
  for (let turn = 0; turn < 100 && output.calls.length < count; turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
  assert.equal(output.calls.length, count);
}

test('an apply that changes the registry before its first await is not overlapped by the apply that change asks for', async (t) => {
  const { ctx } = context(t);
  let inside = 0;
  let most = 0;
  let registered: MeterHandle | undefined;
  const output = declared({ meter: 'pv' });
  const apply = output.apply.bind(output);
  output.apply = async (next, previous) => {
    inside += 1;
    most = Math.max(most, inside);
    // What MetersInput does: a meter joins the registry while the apply still runs synchronously.
    if (next.slice.enable && !registered) registered = registerMeter(ctx, 'pv');
    await new Promise((resolve) => setImmediate(resolve));
    inside -= 1;
    return apply(next, previous);
  };
  const running = runOutput(ctx, output);
  await running.start();
  try {
    const written = ctx.config.apply(new Map<string, unknown>([['services.modbus.enable', true]]));
    assert.ok(written.ok);
    await written.settled;
    await waitForCalls(output, 3);
    assert.equal(most, 1, 'never two applies at once');
    assert.equal(output.calls.at(-1)!.next.slice.meter.handle, registered, 'the new meter is served after');
  } finally {
    await running.stop();
  }
});

test('a fact an apply returns replaces the value reported live before it; a failing output tries again when a meter comes', async (t) => {
  const { ctx } = context(t, { METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true' });
  const output = declared({ meter: 'pv', fail: () => undefined });
  let needMeter = false;
  const apply = output.apply.bind(output);
  output.apply = async (next, previous) => {
    if (needMeter && !next.slice.meter.handle) throw new Error('meter pv is not running');
    return apply(next, previous);
  };
  const running = runOutput(ctx, output);
  await running.start();
  try {
    output.port!.facts({ port: 1 });
    assert.equal(ctx.services.get('probe')?.port, 1);
    needMeter = true;
    const moved = ctx.config.apply(new Map<string, unknown>([['services.modbus.port', 1504]]));
    assert.ok(moved.ok);
    assert.equal((await moved.settled).length, 1, 'the meter is missing: the apply failed');
    assert.equal(ctx.services.get('probe')?.state, 'retrying');
    // The meter comes long before the runner's 1 s retry: the output takes it up at once.
    registerMeter(ctx, 'pv');
    for (let turn = 0; turn < 100 && ctx.services.get('probe')?.state !== 'running'; turn += 1)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ctx.services.get('probe')?.state, 'running');
    assert.equal(ctx.services.get('probe')?.port, 1504, 'the applied port, not the older live one');
  } finally {
    await running.stop();
  }
});
