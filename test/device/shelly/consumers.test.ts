import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { registerCoreRoutes } from '../../../src/http/server.js';
import { registerShellyRoutes, shellyRpcOf } from '../../../src/http/routes/shelly.js';
import { ShellyWebSocket } from '../../../src/device/shelly/websocket.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../../helpers/http-context.js';
import { send, sendJsonBody } from '../../http/http-client.js';

/**
 * The Shelly Pro 3EM personality driven by the requests its consumers' own client code sends, every
 * field they read checked against /api/v1/report, with the password protection off and on:
 * - Home Assistant's Shelly integration through aioshelly's `RpcDevice` (rpc_device/device.py):
 *   `Shelly.GetDeviceInfo`, then one batch of `Shelly.GetConfig`, `Shelly.GetStatus` and, for a
 *   firmware dated 20240213 or later, `Shelly.GetComponents {"dynamic_only": true}` (paged by
 *   `total`); afterwards the status is kept up to date by `NotifyStatus` (merged) and
 *   `NotifyFullStatus` (replacing it).
 * - Victron's dbus-shelly (shelly_device.py, on aioshelly): the same set-up, then
 *   `Shelly.ListMethods` (capabilities are the namespaces: `EM`) and `EM.GetStatus {"id": n}` for
 *   n = 0, 1, ... until an error ends the channel list.
 * - evcc's `meter/shelly` (gen2.go): `POST /rpc/<Method>` with the body
 *   `{"id":0,"src":"evcc","method":"<Method>"}` for `Shelly.ListMethods`, `EM.GetStatus` and
 *   `EMData.GetStatus`, reading the bare result.
 */

const PASSWORD = 'Secret-123';
const MODES = {
  'protection off': { METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true' },
  'protection on': {
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    METER_GATEWAY_SYSTEM_PASSWORD: PASSWORD,
  },
};
const AUTH = { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };

async function withServer(
  env: Record<string, string>,
  fn: (server: HttpTestContext, ws: ShellyWebSocket) => Promise<void>,
): Promise<void> {
  let ws: ShellyWebSocket | undefined;
  const upgrades = {
    handles: (request: Parameters<ShellyWebSocket['handles']>[0]) => ws!.handles(request),
    upgrade: (...args: Parameters<ShellyWebSocket['upgrade']>) => ws!.upgrade(...args),
    close: () => ws?.close(),
  };
  const server = await startHttpContext({
    env,
    clockFrozen: true,
    server: { upgrades },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      const rpc = shellyRpcOf(ctx);
      registerShellyRoutes(router, ctx, rpc);
      ws = new ShellyWebSocket(rpc, () => ctx.config.config.services.emulate.shelly.enable, ctx.logger, {
        refusals: ctx.refusals,
        clock: ctx.clock,
      });
    },
  });
  try {
    await fn(server, ws!);
  } finally {
    await server.close();
  }
}

interface Report {
  instantaneous_power: {
    active: { positive: Record<string, number>; negative: Record<string, number> };
  };
  voltage: Record<string, number>;
  current: Record<string, number>;
  energy: { active: { positive: { total: number }; negative: { total: number } } };
}

async function report(baseUrl: string): Promise<Report> {
  const reply = await send(baseUrl, 'GET', '/api/v1/report', { headers: AUTH });
  assert.equal(reply.status, 200);
  return (reply.json() as { report: Report }).report;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Every EM.GetStatus field evcc, Victron and Home Assistant read, against the report. */
function assertEmMatches(em: Record<string, unknown>, rep: Report): void {
  const power = rep.instantaneous_power.active;
  assert.equal(em.total_act_power, round((power.positive.total! - power.negative.total!) * 1000, 3));
  ['a', 'b', 'c'].forEach((letter, index) => {
    const line = `l${index + 1}`;
    assert.equal(em[`${letter}_act_power`], round((power.positive[line]! - power.negative[line]!) * 1000, 1));
    assert.equal(em[`${letter}_voltage`], rep.voltage[line]);
    assert.equal(em[`${letter}_current`], rep.current[line]);
  });
}

function assertEmDataMatches(data: Record<string, unknown>, rep: Report): void {
  assert.equal(data.total_act, round(rep.energy.active.positive.total * 1000, 2));
  assert.equal(data.total_act_ret, round(rep.energy.active.negative.total * 1000, 2));
}

/** A JSON-RPC peer over the WebSocket as aioshelly's WsRPC is: requests by id, notifications apart. */
class RpcPeer {
  private nextId = 1;
  private readonly waiting = new Map<number, (frame: Record<string, unknown>) => void>();
  readonly notifications: Record<string, unknown>[] = [];
  private notified: (() => void) | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (typeof frame.method === 'string') {
        this.notifications.push(frame);
        this.notified?.();
        return;
      }
      this.waiting.get(frame.id as number)?.(frame);
    });
  }

  static open(port: number): Promise<RpcPeer> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/rpc`);
    return new Promise((resolve, reject) =>
      socket.once('open', () => resolve(new RpcPeer(socket))).once('error', reject),
    );
  }

  /** Several calls sent at once, as `call_rpc_multiple` does; the frames in request order. */
  calls(list: [string, Record<string, unknown>?][]): Promise<Record<string, unknown>[]> {
    return Promise.all(
      list.map(([method, params]) => {
        const id = this.nextId++;
        const frame: Record<string, unknown> = { id, method, src: 'aios-281473' };
        if (params !== undefined) frame.params = params;
        const answer = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
        this.socket.send(JSON.stringify(frame));
        return answer;
      }),
    );
  }

  async result(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const [frame] = await this.calls([[method, params]]);
    assert.equal(frame!.error, undefined, `${method}: ${JSON.stringify(frame!.error)}`);
    return frame!.result as Record<string, unknown>;
  }

  /** Waits until `count` notifications have arrived in all. */
  async notificationCount(count: number): Promise<void> {
    while (this.notifications.length < count) await new Promise<void>((resolve) => (this.notified = resolve));
  }

  close(): void {
    this.socket.close();
  }
}

/** aioshelly's mergedicts: the notification's params merged into the status it holds. */
function merge(dest: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const target = dest[key];
    if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      target &&
      typeof target === 'object'
    )
      merge(target as Record<string, unknown>, value as Record<string, unknown>);
    else dest[key] = value;
  }
}

/** aioshelly's set-up (`RpcDevice._init_calls`): the status it then holds. */
async function aioshellyInitialize(peer: RpcPeer): Promise<Record<string, unknown>> {
  const info = await peer.result('Shelly.GetDeviceInfo');
  // const.py FIRMWARE_PATTERN and VIRTUAL_COMPONENTS_MIN_FIRMWARE: the date at the start of fw_id.
  const date = Number(/^(\d{8})/.exec(String(info.fw_id))?.[1]);
  assert.ok(date >= 20240213, 'the reported firmware makes Home Assistant ask for the components');
  const [config, status, dynamic] = await peer.calls([
    ['Shelly.GetConfig'],
    ['Shelly.GetStatus'],
    ['Shelly.GetComponents', { dynamic_only: true }],
  ]);
  for (const frame of [config, status, dynamic]) assert.equal(frame!.error, undefined, JSON.stringify(frame));
  const components = dynamic!.result as {
    components: unknown[];
    total: number;
    offset: number;
    cfg_rev: number;
  };
  assert.deepEqual(components, { components: [], cfg_rev: 0, offset: 0, total: 0 });
  const held = status!.result as Record<string, unknown>;
  assert.equal((held.sys as { wakeup_period?: number }).wakeup_period ?? 0, 0);
  assert.equal((config!.result as { sys: { device: { name: unknown } } }).sys.device.name ?? null, null);
  return held;
}

for (const [mode, env] of Object.entries(MODES)) {
  test(`Home Assistant's Shelly integration (aioshelly) sets up and is kept current by NotifyStatus, ${mode}`, () =>
    withServer(env, async ({ ctx, clock, port, baseUrl }, ws) => {
      ctx.store.ingest(syntheticReading(clock.now()));
      const peer = await RpcPeer.open(port);
      try {
        const status = await aioshellyInitialize(peer);
        assertEmMatches(status['em:0'] as Record<string, unknown>, await report(baseUrl));
        assertEmDataMatches(status['emdata:0'] as Record<string, unknown>, await report(baseUrl));
        // Each new reading is pushed as the fields that changed.
        for (let step = 1; step <= 3; step++) {
          clock.advance(1000);
          ctx.store.ingest(syntheticReading(clock.now(), step * 100));
          await peer.notificationCount(step);
          const frame = peer.notifications[step - 1]!;
          assert.equal(frame.method, 'NotifyStatus');
          assert.equal(frame.dst, 'aios-281473');
          assert.equal(frame.src, 'shellypro3em-a1b2c3d4e5f6');
          const params = frame.params as Record<string, unknown>;
          assert.equal(params.ts, Math.round(clock.now() / 10) / 100);
          assert.deepEqual(Object.keys(params['em:0'] as object).slice(0, 1), ['id']);
          merge(status, params);
          const rep = await report(baseUrl);
          assertEmMatches(status['em:0'] as Record<string, unknown>, rep);
          assertEmDataMatches(status['emdata:0'] as Record<string, unknown>, rep);
        }
        assert.equal(ws.notified, 3);
        // The meter goes silent: the whole status is replaced, with the EM component's error.
        ctx.store.expire();
        await peer.notificationCount(4);
        const full = peer.notifications[3]!;
        assert.equal(full.method, 'NotifyFullStatus');
        const params = full.params as Record<string, { errors?: string[] }>;
        assert.deepEqual(params['em:0']!.errors, ['power_meter_failure']);
        assert.ok(params.sys);
      } finally {
        peer.close();
      }
    }));

  test(`Victron's dbus-shelly finds the EM capability and one EM channel, ${mode}`, () =>
    withServer(env, async ({ ctx, clock, port, baseUrl }) => {
      ctx.store.ingest(syntheticReading(clock.now()));
      const peer = await RpcPeer.open(port);
      try {
        await aioshellyInitialize(peer);
        const { methods } = (await peer.result('Shelly.ListMethods')) as { methods: string[] };
        const capabilities = new Set(methods.map((method) => method.split('.')[0]));
        assert.ok(capabilities.has('EM'));
        for (const other of ['Switch', 'Light', 'RGB', 'RGBW', 'EM1'])
          assert.equal(capabilities.has(other), false, `${other} is no capability of a Pro 3EM`);
        const [first, second] = await peer.calls([
          ['EM.GetStatus', { id: 0 }],
          ['EM.GetStatus', { id: 1 }],
        ]);
        assertEmMatches(first!.result as Record<string, unknown>, await report(baseUrl));
        assert.equal((second!.error as { code: number }).code, -105);
      } finally {
        peer.close();
      }
    }));

  test(`evcc's shelly meter: POST /rpc/<Method> with its request frame as the body, ${mode}`, () =>
    withServer(env, async ({ ctx, clock, baseUrl }) => {
      ctx.store.ingest(syntheticReading(clock.now()));
      const post = async (method: string) => {
        const reply = await sendJsonBody(baseUrl, 'POST', `/rpc/${method}`, { id: 0, src: 'evcc', method });
        assert.equal(reply.status, 200, reply.text);
        return reply.json() as Record<string, unknown>;
      };
      // connection.go asks GET /shelly for the generation first.
      assert.equal((await send(baseUrl, 'GET', '/shelly')).json().gen, 2);
      const { methods } = (await post('Shelly.ListMethods')) as { methods: string[] };
      assert.ok(methods.includes('EM.GetStatus'));
      assert.ok(methods.includes('EMData.GetStatus'));
      // evcc picks the first endpoint it finds: EM1 or a switch would hide the three-phase EM.
      for (const other of ['EM1.GetStatus', 'PM1.GetStatus', 'Switch.GetStatus'])
        assert.equal(methods.includes(other), false);
      const rep = await report(baseUrl);
      assertEmMatches(await post('EM.GetStatus'), rep);
      assertEmDataMatches(await post('EMData.GetStatus'), rep);
      // The body as params (the Gen2 documentation's form) and the empty body answer the same.
      const asParams = await sendJsonBody(baseUrl, 'POST', '/rpc/EM.GetStatus', { id: 0 });
      assert.deepEqual(asParams.json(), await post('EM.GetStatus'));
      const empty = await send(baseUrl, 'POST', '/rpc/EMData.GetStatus');
      assertEmDataMatches(empty.json(), rep);
      assert.equal((await sendJsonBody(baseUrl, 'POST', '/rpc/EM.GetStatus', { id: 3 })).status, 400);
      assert.equal((await send(baseUrl, 'POST', '/rpc/EM.GetStatus', { body: '{"id":' })).status, 400);
    }));
}

test('Shelly.GetComponents pages every component with its status and config; ListMethods lists what answers', () =>
  withServer(MODES['protection off'], async ({ ctx, clock, port }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const peer = await RpcPeer.open(port);
    try {
      const status = await peer.result('Shelly.GetStatus');
      const config = await peer.result('Shelly.GetConfig');
      const seen: Record<string, unknown>[] = [];
      let total = Infinity;
      while (seen.length < total) {
        const page = (await peer.result('Shelly.GetComponents', {
          include: ['status', 'config'],
          offset: seen.length,
        })) as { components: Record<string, unknown>[]; total: number; offset: number };
        assert.equal(page.offset, seen.length);
        assert.ok(page.components.length > 0);
        total = page.total;
        seen.push(...page.components);
      }
      assert.deepEqual(
        seen.map((component) => component.key),
        Object.keys(status),
      );
      for (const component of seen) {
        const key = component.key as string;
        if (key !== 'sys') assert.deepEqual(component.status, status[key]);
        assert.deepEqual(component.config, config[key] ?? {});
      }
      const keysOnly = (await peer.result('Shelly.GetComponents', { keys: ['em:0'] })) as {
        components: Record<string, unknown>[];
      };
      assert.deepEqual(keysOnly.components, [{ key: 'em:0' }]);
      const { methods } = (await peer.result('Shelly.ListMethods')) as { methods: string[] };
      for (const method of methods) {
        const params = method.startsWith('EM') ? { id: 0 } : undefined;
        const [frame] = await peer.calls([[method, params]]);
        assert.equal(frame!.error, undefined, `${method} is listed and answers`);
      }
      assert.deepEqual(await peer.result('Shelly.CheckForUpdate'), {});
      assert.equal((await peer.result('EM.GetConfig', { id: 0 })).id, 0);
      assert.equal((await peer.result('Sys.GetConfig')).device !== undefined, true);
    } finally {
      peer.close();
    }
  }));

test('state-changing methods answer the not-allowed error and change nothing', () =>
  withServer(MODES['protection off'], async ({ ctx, clock, port, baseUrl }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const peer = await RpcPeer.open(port);
    try {
      const before = await peer.result('Shelly.GetConfig');
      const settings = JSON.stringify(ctx.config.config);
      const calls: [string, Record<string, unknown>][] = [
        ['Switch.Set', { id: 0, on: true }],
        ['Sys.SetConfig', { config: { device: { name: 'x' } } }],
        ['Shelly.Reboot', { delay_ms: 1000 }],
        ['Shelly.Update', { stage: 'stable' }],
        ['Shelly.FactoryReset', {}],
        ['EM.SetConfig', { id: 0, config: { name: 'x' } }],
        ['Ws.SetConfig', { config: { enable: true, server: 'ws://127.0.0.1:1/' } }],
      ];
      for (const frame of await peer.calls(calls)) {
        const error = frame.error as { code: number; message: string };
        assert.equal(error.code, -109, JSON.stringify(frame));
        assert.match(error.message, /not allowed/);
      }
      const post = await sendJsonBody(baseUrl, 'POST', '/rpc/Shelly.Reboot', { delay_ms: 1 });
      assert.equal(post.status, 400);
      assert.equal(post.json().code, -109);
      assert.deepEqual(await peer.result('Shelly.GetConfig'), before);
      assert.equal(JSON.stringify(ctx.config.config), settings);
      // A reading method the Pro 3EM does not have stays the device's "No handler".
      const [unknown] = await peer.calls([['Script.GetCode', { id: 1, offset: 0, len: 0 }]]);
      assert.deepEqual(unknown!.error, { code: 404, message: 'No handler for Script.GetCode' });
    } finally {
      peer.close();
    }
  }));
