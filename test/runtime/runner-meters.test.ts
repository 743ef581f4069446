import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ServiceStatus } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { openStream } from '../http/sse-client.js';
import { syntheticReading } from '../helpers/http-context.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { sendJson as send, startDaemon } from './runner-rig.js';

// The runner with the meter inputs and the device outputs (docs/architecture.md#output-contract):
// a failed start recovers when its cause goes away, a write an output cannot take up answers 500
// naming it, a slow one 202 `applying`, the record goes after the fix, and an edited further
// meter is followed onto its new store.

registerConfigFormats();

const post = (base: string, body: unknown) => send(base, 'POST', '/api/v1/settings', body);

/** A TCP peer on `port` (a meter source that accepts and stays silent). */
async function listen(port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => sockets.push(socket));
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * One row per output whose settings can ask for something the box cannot do: how the cause is
 * put in place and taken away, and which settings write meets it.
 */
interface FailingKind {
  kind: string;
  name: string;
  /** Settings that switch the output on from the start. */
  env: Record<string, string>;
  /** Puts the cause of the failure in place (in the daemon's state folder). */
  breakIt(stateDir: string): void;
  fixIt(stateDir: string): void;
  /** Settings writes that switch the output off and on again. */
  off: unknown;
  on: unknown;
}

const KINDS: FailingKind[] = [
  {
    kind: 'log file',
    name: 'log',
    env: { METER_GATEWAY_SERVICES_LOG: 'true' },
    // A folder where the log file should be: it cannot be opened (EISDIR).
    breakIt: (stateDir) => {
      rmSync(join(stateDir, 'sd', 'meter-gateway.log'), { force: true });
      mkdirSync(join(stateDir, 'sd', 'meter-gateway.log'), { recursive: true });
    },
    fixIt: (stateDir) => rmSync(join(stateDir, 'sd', 'meter-gateway.log'), { recursive: true }),
    off: { services: { log: false } },
    on: { services: { log: true } },
  },
  {
    kind: 'CSV logging',
    name: 'sd',
    env: { METER_GATEWAY_SERVICES_SD_ENABLE: 'true' },
    // A file where the SD card folder should be: it cannot be made.
    breakIt: (stateDir) => {
      rmSync(join(stateDir, 'sd'), { recursive: true, force: true });
      writeFileSync(join(stateDir, 'sd'), 'not a folder');
    },
    fixIt: (stateDir) => rmSync(join(stateDir, 'sd')),
    off: { services: { sd: { enable: false } } },
    on: { services: { sd: { enable: true } } },
  },
];

for (const row of KINDS) {
  test(`${row.kind}: a failed start recovers when its cause goes away; a write it cannot take up answers 500 naming ${row.name}; the record goes after the fix`, async () => {
    const run = await startDaemon(row.env, row.breakIt);
    try {
      const failed = run.services()[row.name];
      assert.equal(failed?.state, 'retrying', JSON.stringify(failed));
      assert.equal(typeof failed?.error, 'string');

      row.fixIt(run.stateDir);
      await waitFor(
        `${row.name} to run once its cause is gone`,
        () => run.services()[row.name],
        (line) => line?.state === 'running' && line.error === undefined,
      );

      const off = await post(run.base, row.off);
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal(run.services()[row.name]?.state, 'disabled');
      row.breakIt(run.stateDir);
      const answer = await post(run.base, row.on);
      assert.equal(answer.status, 500, JSON.stringify(answer.body));
      assert.equal(answer.body.details?.saved, true);
      assert.deepEqual(
        answer.body.details?.failed?.map((failure) => failure.output),
        [row.name],
      );
      assert.equal(run.services()[row.name]?.state, 'retrying');

      row.fixIt(run.stateDir);
      const fixed = await waitFor(
        `${row.name} to run after the fix`,
        () => run.services()[row.name],
        (line) => line?.state === 'running',
      );
      assert.equal(fixed?.error, undefined, 'the record goes with its cause');
      assert.equal(fixed?.retry_in_ms, undefined);
    } finally {
      await run.close();
    }
  });
}

test('primary meter: a source absent at start is retried until it opens; a source it cannot open answers 500 naming meter, and runs once it is there', async () => {
  const first = await freePort();
  const run = await startDaemon({ METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${first}` });
  const peers: { close(): Promise<void> }[] = [];
  try {
    // A meter cable plugged in after boot: the start does not fail, the input retries by itself.
    const waiting = await waitFor(
      'the meter input to retry',
      () => run.services().meter,
      (line) => line?.state === 'retrying',
    );
    assert.match(String(waiting?.error), /ECONNREFUSED/);
    peers.push(await listen(first));
    const opened = await waitFor(
      'the meter input to open the source',
      () => run.services().meter,
      (line) => line?.state === 'running' && line.link === 'open',
    );
    assert.equal(opened?.error, undefined);
    assert.equal(opened?.source, `tcp://127.0.0.1:${first}`);

    const second = await freePort();
    const answer = await send(run.base, 'PUT', '/api/v1/meter/settings', {
      source: `tcp://127.0.0.1:${second}`,
    });
    assert.equal(answer.status, 500, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.details?.failed?.map((failure) => failure.output),
      ['meter'],
    );
    assert.equal(run.services().meter?.state, 'retrying');
    peers.push(await listen(second));
    const fixed = await waitFor(
      'the meter input to run on the new source',
      () => run.services().meter,
      (line) =>
        line?.state === 'running' && line.link === 'open' && line.source === `tcp://127.0.0.1:${second}`,
    );
    assert.equal(fixed?.error, undefined, 'the record goes after the fix');
  } finally {
    await run.close();
    for (const peer of peers) await peer.close();
  }
});

test('further meters: a meter whose first open waits answers 202 applying naming meters; the status then shows it running', async () => {
  // Another gateway whose live stream answers only when the test lets it.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const streams: ServerResponse[] = [];
  const remote = createHttpServer((request, response) => {
    streams.push(response);
    void held.then(() => response.writeHead(200, { 'Content-Type': 'text/event-stream' }).write(': hi\n\n'));
  });
  remote.listen(0, '127.0.0.1');
  await once(remote, 'listening');
  const source = `http://127.0.0.1:${(remote.address() as { port: number }).port}/api/v1/live`;
  const run = await startDaemon({ METER_GATEWAY_HTTP_APPLY_TIMEOUT_MS: '300' });
  try {
    assert.equal(run.services().meters?.state, 'disabled', 'no further meter listed');
    const answer = await post(run.base, { meters: [{ id: 'pv', name: 'PV', role: 'pv', source }] });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { state: 'applying', outputs: ['meters'] });
    release();
    const line = await waitFor(
      'the further meter to run',
      () => run.services().meters,
      (status) => status?.state === 'running' && status.running === 1,
    );
    const meters = line?.meters as Record<string, ServiceStatus>;
    assert.equal(meters.pv?.state, 'running');
    assert.equal(meters.pv?.link, 'open');
  } finally {
    release();
    await run.close();
    for (const stream of streams) stream.destroy();
    remote.closeAllConnections();
    await new Promise<void>((resolve) => remote.close(() => resolve()));
  }
});

test('an edited further meter is followed: the meters line and the live stream serve its new store', async () => {
  const first = await listen();
  const second = await listen();
  const run = await startDaemon({});
  const entry = (port: number) => ({ id: 'pv', name: 'PV', role: 'pv', source: `tcp://127.0.0.1:${port}` });
  try {
    const added = await post(run.base, { meters: [entry(first.port)] });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const before = run.daemon.context.meters.get('pv');
    assert.ok(before);
    const stream = await openStream(run.base, '/api/v1/meters/pv/live');
    let streamEnded = false;
    void stream.ended.then(() => (streamEnded = true));

    const edited = await post(run.base, { meters: [entry(second.port)] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const after = run.daemon.context.meters.get('pv');
    assert.ok(after && after !== before && after.store !== before.store, 'a restarted meter is a new handle');
    // The stream of the old store ends: the live output applied the new handle.
    await waitFor('the stream of the old store to end', () => streamEnded);
    const line = await waitFor(
      'the meters line to show the new source',
      () => (run.services().meters?.meters as Record<string, ServiceStatus> | undefined)?.pv,
      (pv) => pv?.link === 'open' && pv.source === `tcp://127.0.0.1:${second.port}`,
    );
    assert.equal(line?.state, 'running');

    // A new stream serves the new store.
    const next = await openStream(run.base, '/api/v1/meters/pv/live');
    after.store.ingest(syntheticReading(run.daemon.context.now()));
    assert.match(await next.block(0), /^event: live/);
    next.close();
  } finally {
    await run.close();
    await first.close();
    await second.close();
  }
});
