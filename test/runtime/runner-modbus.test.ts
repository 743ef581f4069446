import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceStatus } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { requireCommand } from '../helpers/environment.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { closeClient, connectClient } from '../modbus/clients.js';
import { mbpollRtu, UNIT } from '../modbus/rtu-rig.js';
import { mbpollValues } from '../modbus/clients.js';
import { postEdited, startDaemon, type Running, type WriteAnswer } from './runner-rig.js';

// The Modbus TCP slave, the Modbus RTU slave and the meter proxy as declared outputs run by the
// runner (docs/architecture.md#output-contract), through a real daemon and its HTTP API: a failed
// start is retried until its cause goes away, a write the output cannot take up answers 500 naming
// it, the status record clears after the fix, and a further meter edited through the settings is
// followed onto its new store. None of these outputs waits on a remote peer in its apply (each
// binds a local port or opens a local device), so the 202 `applying` answer is the meter input's
// row in runner.test.ts.

registerConfigFormats();

/** The device's settings object as GET /api/v1/settings shows it (the parts these tests change). */
interface Settings {
  services: Record<string, unknown> & {
    modbus: Record<string, unknown>;
    modbus_rtu: Record<string, unknown>;
  };
  meters?: Record<string, unknown>[];
}

/** A loopback TCP port held by another program. */
async function holdTcp(port = 0): Promise<{ port: number; release(): Promise<void> }> {
  const server: Server = createServer((socket) => socket.destroy());
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The cause of a failure the test holds, and how it goes away. */
interface Cause {
  fix(): Promise<void>;
}

/**
 * One row per output kind: a daemon whose output cannot start, a write it cannot take up, and what
 * the status line shows while it serves as configured.
 */
interface Kind {
  kind: string;
  name: string;
  /** What the kind needs on this machine (a skip names it). */
  commands: string[];
  /** The environment of a daemon whose output cannot start, and the cause that stops it. */
  broken(t: TestContext): Promise<{ env: Record<string, string>; cause: Cause; where: string }>;
  /** The failure's reason, as the status line and the 500 name it. */
  reason: RegExp;
  /** A write the output cannot take up: the answer, and the cause to remove after it. */
  badWrite(run: Running, t: TestContext): Promise<{ answer: WriteAnswer; cause: Cause; where: string }>;
  serving(line: ServiceStatus | undefined, where: string): boolean;
}

const KINDS: Kind[] = [
  {
    kind: 'Modbus TCP slave',
    name: 'modbus',
    commands: [],
    async broken() {
      const busy = await holdTcp();
      const env = {
        METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
        METER_GATEWAY_SERVICES_MODBUS_PORT: String(busy.port),
      };
      return { env, cause: { fix: busy.release }, where: String(busy.port) };
    },
    reason: /EADDRINUSE/,
    async badWrite(run) {
      const busy = await holdTcp();
      const answer = await postEdited<Settings>(
        run.base,
        (settings) => (settings.services.modbus.port = busy.port),
      );
      return { answer, cause: { fix: busy.release }, where: String(busy.port) };
    },
    serving: (line, where) => line?.state === 'running' && line.port === Number(where),
  },
  {
    kind: 'Modbus RTU slave',
    name: 'modbus_rtu',
    commands: ['socat'],
    // The adapter is not plugged in yet: the pty appears later under the configured path.
    async broken(t) {
      const dir = mkdtempSync(join(tmpdir(), 'mg-rtu-'));
      const pty = new SocatPty(dir);
      t.after(async () => {
        await pty.stop();
        rmSync(dir, { recursive: true, force: true });
      });
      const env = {
        METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
        METER_GATEWAY_SERVICES_MODBUS_RTU_DEVICE: pty.hostPath,
        METER_GATEWAY_SERVICES_MODBUS_RTU_PARITY: 'none',
      };
      return { env, cause: { fix: () => pty.start() }, where: pty.hostPath };
    },
    reason: /cannot open/,
    // A device path where no adapter is; the fix plugs one in there (a link to the running pty).
    async badWrite(run) {
      const host = String(run.daemon.context.config.config.services.modbus_rtu.device);
      const absent = join(host, '..', 'ttyUSB9');
      const answer = await postEdited<Settings>(
        run.base,
        (settings) => (settings.services.modbus_rtu.device = absent),
      );
      return { answer, cause: { fix: async () => symlinkSync(host, absent) }, where: absent };
    },
    serving: (line, where) => line?.state === 'running' && line.device === where,
  },
  {
    kind: 'meter proxy',
    name: 'meter_proxy',
    commands: [],
    async broken() {
      const busy = await holdTcp();
      const env = {
        METER_GATEWAY_SERVICES_METER_PROXY: 'true',
        METER_GATEWAY_METER_PROXY_PORT: String(busy.port),
      };
      return { env, cause: { fix: busy.release }, where: String(busy.port) };
    },
    reason: /EADDRINUSE/,
    // meter_proxy.port is a daemon setting: switched off, its port taken, switched on again.
    async badWrite(run) {
      const off = await postEdited<Settings>(run.base, (settings) => (settings.services.meter_proxy = false));
      assert.equal(off.status, 200, JSON.stringify(off.body));
      const busy = await holdTcp(run.daemon.context.config.config.meter_proxy.port);
      const answer = await postEdited<Settings>(
        run.base,
        (settings) => (settings.services.meter_proxy = true),
      );
      return { answer, cause: { fix: busy.release }, where: String(busy.port) };
    },
    serving: (line, where) => line?.state === 'running' && line.port === Number(where),
  },
];

/** Running as configured, and no trace of the failure left on the status line. */
function clean(line: ServiceStatus | undefined): boolean {
  return line !== undefined && line.error === undefined && line.retry_in_ms === undefined;
}

for (const row of KINDS) {
  test(`${row.kind}: a failed start recovers when its cause goes away; a write it cannot take up answers 500 naming ${row.name}; the status record clears after each fix`, async (t) => {
    if (row.commands.some((command) => !requireCommand(t, command))) return;
    const broken = await row.broken(t);
    const run = await startDaemon(broken.env);
    try {
      const failed = run.services()[row.name];
      assert.equal(failed?.state, 'retrying', JSON.stringify(failed));
      assert.match(String(failed?.error), row.reason);
      assert.equal(typeof failed?.retry_in_ms, 'number');

      await broken.cause.fix();
      await waitFor(
        `${row.name} to serve once its cause is gone`,
        () => run.services()[row.name],
        (line) => row.serving(line, broken.where) && clean(line),
        { deadlineMs: 10_000 },
      );

      const bad = await row.badWrite(run, t);
      assert.equal(bad.answer.status, 500, JSON.stringify(bad.answer.body));
      assert.equal(bad.answer.body.error, 'internal_error');
      assert.equal(bad.answer.body.details?.saved, true);
      const named = bad.answer.body.details?.failed ?? [];
      assert.deepEqual(
        named.map((failure) => failure.output),
        [row.name],
      );
      assert.match(named[0]!.message, row.reason);
      assert.equal(run.services()[row.name]?.state, 'retrying');
      assert.match(String(run.services()[row.name]?.error), row.reason);

      await bad.cause.fix();
      await waitFor(
        `${row.name} to serve after the fix`,
        () => run.services()[row.name],
        (line) => row.serving(line, bad.where) && clean(line),
        { deadlineMs: 10_000 },
      );
    } finally {
      await run.close();
    }
  });
}

/** A meter peer that accepts and never sends: the further meter's input runs, its store gets only what the test ingests. */
async function silentPeer(t: TestContext): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as { port: number }).port;
}

function reading(watts: number): Reading {
  return {
    receivedAt: Date.now(),
    protocol: 'MODBUS',
    identity: {},
    values: valuesOf({
      '1.7.0': [watts / 1000, 'kW'],
      '2.7.0': [0, 'kW'],
      '1.8.0': [watts, 'kWh'],
      '2.8.0': [1, 'kWh'],
    }),
    mbus: [],
  };
}

/** One row per output that serves a further meter its settings name, and how the test reads its power there. */
interface Follower {
  kind: string;
  commands: string[];
  env(t: TestContext): Promise<Record<string, string>>;
  /** The total power the output serves for meter `pv` (W), undefined when it answers none. */
  power(run: Running): Promise<number | undefined>;
}

const FOLLOWERS: Follower[] = [
  {
    kind: 'Modbus TCP slave (unit 2 of services.modbus.units)',
    commands: [],
    env: async () => ({
      METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
      METER_GATEWAY_SERVICES_MODBUS_PORT: String(await freePort()),
      METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630',
      METER_GATEWAY_SERVICES_MODBUS_UNITS: JSON.stringify({ '1': 'main', '2': 'pv' }),
    }),
    async power(run) {
      const client = await connectClient(run.daemon.context.config.config.services.modbus.port, 2);
      try {
        // SDM630 input register 30053 (PDU address 0x34): total system power, W, a float.
        const { buffer } = await client.readInputRegisters(0x34, 2);
        return buffer.readFloatBE(0);
      } catch {
        return undefined;
      } finally {
        await closeClient(client);
      }
    },
  },
  {
    kind: 'Modbus RTU slave (services.modbus_rtu.meter)',
    commands: ['socat', 'mbpoll'],
    async env(t) {
      const dir = mkdtempSync(join(tmpdir(), 'mg-rtu-'));
      const pty = new SocatPty(dir);
      await pty.start();
      t.after(async () => {
        await pty.stop();
        rmSync(dir, { recursive: true, force: true });
      });
      return {
        METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
        METER_GATEWAY_SERVICES_MODBUS_RTU_DEVICE: pty.hostPath,
        METER_GATEWAY_SERVICES_MODBUS_RTU_UNIT_ID: String(UNIT),
        METER_GATEWAY_SERVICES_MODBUS_RTU_PARITY: 'none',
        METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630',
        METER_GATEWAY_SERVICES_MODBUS_RTU_METER: 'pv',
      };
    },
    async power(run) {
      const device = String(run.daemon.context.config.config.services.modbus_rtu.device);
      const meterEnd = join(device, '..', 'meter');
      const { stdout } = await mbpollRtu(meterEnd, ['-B', '-t', '3:float', '-r', '53', '-c', '1']);
      return mbpollValues(stdout).get(53);
    },
  },
];

for (const row of FOLLOWERS) {
  test(`${row.kind}: a further meter edited through POST /api/v1/settings is followed onto its new store`, async (t) => {
    if (row.commands.some((command) => !requireCommand(t, command))) return;
    const peer = await silentPeer(t);
    const pv = { id: 'pv', name: 'PV', role: 'pv', source: `tcp://127.0.0.1:${peer}?protocol=dsmr` };
    const run = await startDaemon({ ...(await row.env(t)), METER_GATEWAY_METERS: JSON.stringify([pv]) });
    try {
      const meters = run.daemon.context.meters;
      const before = meters.get('pv');
      assert.ok(before, 'the further meter runs');
      before.store.ingest(reading(1111));
      assert.equal(
        await waitFor(
          'the first store served',
          () => row.power(run),
          (w) => w === 1111,
        ),
        1111,
      );

      const edited = await postEdited<Settings>(
        run.base,
        (settings) => (settings.meters = [{ ...pv, name: 'PV roof' }]),
      );
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const after = meters.get('pv');
      assert.ok(after && after.store !== before.store, 'the edited meter runs on a new store');
      after.store.ingest(reading(2222));
      assert.equal(
        await waitFor(
          'the new store served',
          () => row.power(run),
          (w) => w === 2222,
        ),
        2222,
      );
    } finally {
      await run.close();
    }
  });
}
