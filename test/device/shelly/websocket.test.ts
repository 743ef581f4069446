import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeviceDiscoverer, Shellies } from 'shellies-ng';
import { WebSocket } from 'ws';
import { registerShellyRoutes, shellyRpcOf } from '../../../src/http/routes/shelly.js';
import {
  SHELLY_WS_DEFAULTS,
  ShellyWebSocket,
  type ShellyWsOptions,
} from '../../../src/device/shelly/websocket.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

const ON = { METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true' };

async function withServer(
  fn: (server: HttpTestContext, ws: ShellyWebSocket, clock: VirtualClock) => Promise<void>,
  options: Partial<ShellyWsOptions> = {},
): Promise<void> {
  const clock = new VirtualClock();
  let ws: ShellyWebSocket | undefined;
  const upgrades = {
    handles: (request: Parameters<ShellyWebSocket['handles']>[0]) => ws!.handles(request),
    upgrade: (...args: Parameters<ShellyWebSocket['upgrade']>) => ws!.upgrade(...args),
    close: () => ws?.close(),
  };
  const server = await startHttpContext({
    env: ON,
    clockFrozen: true,
    server: { upgrades },
    routes: (router, ctx) => {
      const rpc = shellyRpcOf(ctx);
      registerShellyRoutes(router, ctx, rpc);
      ws = new ShellyWebSocket(
        rpc,
        () => ctx.config.config.services.emulate.shelly.enable,
        ctx.logger,
        {
          refusals: ctx.refusals,
          clock,
        },
        { ...SHELLY_WS_DEFAULTS, ...options },
      );
    },
  });
  try {
    await fn(server, ws!, clock);
  } finally {
    await server.close();
  }
}

/** shellies-ng learns of devices from discoverers; this one reports the one address it is given. */
class OneAddress extends DeviceDiscoverer {
  report(deviceId: string, hostname: string): void {
    this.handleDiscoveredDevice({ deviceId, hostname });
  }
}

test('shellies-ng over WebSocket: identifies the Pro 3EM by its device info and reads the meter power and energy', () =>
  withServer(async ({ ctx, clock, port }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const shellies = new Shellies({ autoLoadConfig: false, autoLoadStatus: false });
    const discoverer = new OneAddress();
    shellies.registerDiscoverer(discoverer);
    const hostname = `127.0.0.1:${port}`;
    // The library keeps the handler of a device it does not know open (reconnecting): every
    // handler it makes is kept here to be destroyed at the end.
    const handlers: Array<{ destroy(): PromiseLike<void> }> = [];
    const create = shellies.websocket.create.bind(shellies.websocket);
    shellies.websocket.create = (host, options) => {
      const made = create(host, options);
      handlers.push(made);
      return made;
    };
    // shellies-ng 1.5 asks Shelly.GetDeviceInfo over the WebSocket, checks the id and looks the
    // model up; it has no class of its own for the Pro 3EM, so it reports the model as unknown.
    const identified = new Promise<string>((resolve, reject) => {
      shellies.on('unknown', (_id, model) => resolve(model));
      shellies.on('error', (_id, error) => reject(error));
    });
    discoverer.report('shellypro3em-a1b2c3d4e5f6', hostname);
    assert.equal(await identified, 'SPEM-003CEBEU');
    const handler = shellies.websocket.create(hostname, { reconnectInterval: 60_000 });
    try {
      const em = await handler.request<Record<string, number>>('EM.GetStatus', { id: 0 });
      const data = await handler.request<Record<string, number>>('EMData.GetStatus', { id: 0 });
      const values = ctx.store.latest!.values;
      assert.equal(em.total_act_power, (values.get('1.7.0')!.value - values.get('2.7.0')!.value) * 1000);
      assert.equal(em.a_act_power, values.get('21.7.0')!.value * 1000);
      assert.equal(data.total_act, Math.round(values.get('1.8.0')!.value * 1000 * 100) / 100);
      assert.equal(data.total_act_ret, Math.round(values.get('2.8.0')!.value * 1000 * 100) / 100);
      await assert.rejects(
        async () => await handler.request('Switch.Set', { id: 0, on: true }),
        /Switch\.Set is not allowed/,
      );
    } finally {
      for (const made of handlers) await made.destroy();
    }
  }));

function open(port: number, options: ConstructorParameters<typeof WebSocket>[2] = {}): Promise<WebSocket> {
  const client = new WebSocket(`ws://127.0.0.1:${port}/rpc`, options);
  return new Promise((resolve, reject) => client.once('open', () => resolve(client)).once('error', reject));
}

function next(client: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => client.once('message', (data) => resolve(JSON.parse(String(data)))));
}

test('WebSocket bad input: malformed frames answered, oversized frames close 1009, the server keeps serving', () =>
  withServer(async ({ port }) => {
    const client = await open(port);
    client.send('{"id":1,');
    assert.equal(((await next(client)).error as { code: number }).code, -32700);
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    client.send(`{"id":2,"method":"${'x'.repeat(5000)}"}`);
    assert.equal(await closed, 1009);
    const again = await open(port);
    again.send('{"id":3,"src":"t","method":"Shelly.GetDeviceInfo"}');
    assert.equal(((await next(again)).result as { app: string }).app, 'Pro3EM');
    again.close();
  }));

test('a WebSocket client that never reads its answers is dropped, not waited for', () =>
  withServer(async ({ port }, ws) => {
    const client = await open(port);
    // The client stops reading: the kernel buffers fill, then the answers pile up in the server.
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const frame = '{"id":1,"method":"Shelly.GetStatus"}';
    for (let i = 0; i < 20_000 && ws.dropped === 0; i++) {
      client.send(frame);
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(
      'the client that does not read dropped',
      () => ws.dropped,
      (dropped) => dropped === 1,
    );
    const other = await open(port);
    other.send('{"id":2,"method":"Sys.GetStatus"}');
    assert.equal(((await next(other)).result as { mac: string }).mac, 'A1B2C3D4E5F6');
    other.close();
    client.terminate();
  }));

test('a WebSocket to /rpc while the personality is off is refused like an unknown path', () =>
  withServer(async ({ port, ctx }) => {
    assert.equal(ctx.config.apply(new Map([['services.emulate.shelly.enable', false]])).ok, true);
    await assert.rejects(() => open(port), /Unexpected server response: 404/);
  }));

test("a WebSocket upgrade from a foreign page is refused; the device's own origin and no origin pass", () =>
  withServer(async ({ port, ctx }) => {
    await assert.rejects(
      () => open(port, { origin: 'http://evil.example' }),
      // The API's answer to a foreign page (docs/architecture.md#cross-site-requests).
      /Unexpected server response: 404/,
    );
    assert.equal(ctx.refusals.get('websocket_foreign_origin'), 1);
    const own = await open(port, { origin: `http://127.0.0.1:${port}` });
    own.terminate();
    const app = await open(port);
    app.terminate();
  }));

test('WebSocket connections per address are capped; a closed one frees its slot', () =>
  withServer(
    async ({ port, ctx }) => {
      const first = await open(port);
      const second = await open(port);
      await assert.rejects(() => open(port), /Unexpected server response: 503/);
      assert.equal(ctx.refusals.get('websocket_address_cap'), 1);
      const closed = new Promise((resolve) => first.once('close', resolve));
      first.close();
      await closed;
      const third = await waitFor(
        'the freed slot',
        () => open(port).catch(() => undefined),
        (client) => client !== undefined,
      );
      third!.terminate();
      second.terminate();
    },
    { maxPerAddress: 2 },
  ));

test('an idle WebSocket is closed after idleMs; requests and pings keep a connection open', () =>
  withServer(
    async ({ port, ctx }, _ws, clock) => {
      const idle = await open(port);
      const busy = await open(port);
      const idleClosed = new Promise<number>((resolve) => idle.once('close', (code) => resolve(code)));
      for (let i = 0; i < 4; i++) {
        busy.send(`{"id":${i},"method":"Sys.GetStatus"}`);
        await next(busy);
        await clock.advance(400);
      }
      assert.equal(await idleClosed, 1001);
      assert.equal(ctx.refusals.get('websocket_idle'), 1);
      assert.equal(busy.readyState, WebSocket.OPEN);
      busy.ping();
      await new Promise((resolve) => busy.once('pong', resolve));
      await clock.advance(600);
      assert.equal(busy.readyState, WebSocket.OPEN);
      busy.terminate();
    },
    { idleMs: 1000 },
  ));
