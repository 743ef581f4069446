import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Backoff, RECONNECT_CAP_MS } from '../../../src/backoff.js';
import { corpusDir, requireCorpus } from '../../helpers/environment.js';
import { meterInput, tempDir, waitForStatus } from './meter-input-harness.js';
import { waitFor } from '../../helpers/wait.js';

/** A P1-to-LAN adapter: sends a telegram to each client every 200 ms; can be stopped and started on its port. */
class TelegramServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private timer: NodeJS.Timeout | undefined;
  port = 0;

  constructor(private readonly telegram: Buffer) {}

  async start(): Promise<void> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    this.timer = setInterval(() => {
      for (const socket of this.sockets) socket.write(this.telegram);
    }, 200);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Reconnect delays the meter input announced, in seconds, in order. */
function announcedDelays(warnings: readonly string[]): number[] {
  return warnings.flatMap((line) => {
    const match = /retrying in ([\d.]+) s/.exec(line);
    return match ? [Number(match[1])] : [];
  });
}

test('reconnect delays double from 1 s while the peer is away and start at 1 s again after a valid frame', async (t) => {
  if (!requireCorpus(t)) return;
  const server = new TelegramServer(readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt')));
  await server.start();
  const harness = meterInput(tempDir('mg-backoff-'), `tcp://127.0.0.1:${server.port}?protocol=dsmr`);
  t.after(async () => {
    await harness.close();
    await server.stop();
  });
  const { store, warnings } = harness;
  await harness.input.start();
  await waitForStatus(store, ['OK']);
  assert.equal(store.meter.interface, 'TCP');

  await server.stop();
  await waitForStatus(store, ['NOT CONNECTED']);
  // closed by the peer (1 s), then refused twice (2 s, 4 s).
  await waitFor(
    'three reconnect attempts',
    () => announcedDelays(warnings),
    (delays) => delays.length >= 3,
    {
      deadlineMs: 15_000,
    },
  );
  assert.deepEqual(announcedDelays(warnings).slice(0, 3), [1, 2, 4]);
  assert.ok(warnings.some((line) => /cannot open tcp:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/.test(line)));

  await server.start();
  await waitForStatus(store, ['OK'], 15_000);
  const before = announcedDelays(warnings).length;
  await server.stop();
  await waitFor(
    'a reconnect after the reset',
    () => announcedDelays(warnings),
    (delays) => delays.length > before,
  );
  assert.equal(announcedDelays(warnings)[before], 1, 'backoff starts over after a valid frame');
});

test('the delay is capped at 60 s when asked', () => {
  const backoff = new Backoff(1000, 60_000);
  const delays = Array.from({ length: 9 }, () => backoff.next());
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  backoff.reset();
  assert.equal(backoff.next(), 1000);
});

test('the reconnect delay doubles from 1 s to exactly 30 s and never above (README, docs/architecture.md#data-flow)', () => {
  const backoff = new Backoff();
  const delays = Array.from({ length: 9 }, () => backoff.next());
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  assert.equal(RECONNECT_CAP_MS, 30_000);
});
