import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundedRequest, OUTGOING_BODY_LIMIT, OUTGOING_EVENT_LIMIT } from '../src/outgoing.js';
import { postReport } from '../src/device/report-post.js';
import { RemoteTransport } from '../src/meter/transport/remote.js';
import type { MeterDataError } from '../src/meter/decoder.js';
import { startDaemonProcess } from './helpers/daemon-process.js';
import { waitFor } from './helpers/wait.js';
import { send } from './http/http-client.js';

/**
 * Outgoing requests against a loopback peer that answers 300 MB (docs/architecture.md#hostile-input):
 * the daemon reads at most the documented amount, aborts the rest and counts it.
 */

const HUGE = 300 * 1024 * 1024;

interface HugePeer {
  url: string;
  /** Bytes handed to the socket per answer, once its connection closed. */
  sent: number[];
  /** Resolves when an answer's connection closed. */
  closed(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Answers every request with `status` and a 300 MB chunked body made lazily, 64 kB at a time as
 * the socket drains; `prefix` starts the body (an event stream's `data:` field).
 */
async function hugePeer(
  status = 200,
  contentType = 'application/octet-stream',
  prefix = '',
): Promise<HugePeer> {
  const sent: number[] = [];
  const waiters: ((bytes: number) => void)[] = [];
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server: Server = createServer((request, response) => {
    // Of an event stream's gateway, the report is as long as the stream (the remote transport reads both).
    const report = request.url === '/api/v1/report';
    if (report && !prefix) {
      response.writeHead(404).end();
      return;
    }
    let written = 0;
    response.writeHead(status, { 'content-type': report ? 'application/json' : contentType });
    const start = report ? '{"report":"' : prefix;
    written += Buffer.byteLength(start);
    response.write(start);
    const pump = (): void => {
      while (written < HUGE && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      response.end();
    };
    response.on('close', () => {
      sent.push(written);
      waiters.shift()?.(written);
    });
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    closed: () => new Promise((resolve) => waiters.push(resolve)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a 300 MB answer is read up to the limit and the request aborted there', async () => {
  const peer = await hugePeer();
  try {
    const { got } = await import('got');
    const closed = peer.closed();
    const answer = await boundedRequest(got, `${peer.url}/big`, { timeout: { request: 30_000 } });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.cut, true);
    assert.equal(answer.body.length, OUTGOING_BODY_LIMIT);
    const sent = await closed;
    // What the peer could hand to the socket before it was closed: the read part plus socket buffers.
    assert.ok(sent < 32 * 1024 * 1024, `the peer wrote ${sent} bytes before the request was aborted`);
  } finally {
    await peer.close();
  }
});

test('a short answer is read whole and not counted as cut, with a body, without one, and for a GET', async () => {
  const server = createServer((_request, response) => response.end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { got } = await import('got');
    const { port } = server.address() as AddressInfo;
    for (const options of [{ method: 'POST' as const, body: 'x' }, { method: 'POST' as const }, {}]) {
      const answer = await boundedRequest(got, `http://127.0.0.1:${port}/`, {
        ...options,
        timeout: { request: 5000 },
      });
      assert.deepEqual([answer.statusCode, answer.cut, answer.body.toString()], [200, false, '{"ok":true}']);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a cloud push rejected with a 300 MB answer keeps its start for the log and is cut', async () => {
  const peer = await hugePeer(400);
  try {
    const outcome = await postReport(`${peer.url}/push`, Buffer.from('{}'), {
      timeoutMs: 30_000,
      userAgent: 'test',
      agents: {},
    });
    assert.equal(outcome.kind, 'rejected');
    assert.equal(outcome.cut, true);
    if (outcome.kind === 'rejected') assert.equal(outcome.answer, 'x'.repeat(200));
  } finally {
    await peer.close();
  }
});

test('a remote gateway whose report and live event never end: both counted as overflows, the stream closed', async () => {
  const peer = await hugePeer(200, 'text/event-stream', 'event: live\ndata: ');
  const transport = new RemoteTransport(`${peer.url}/api/v1/live`, { username: '', password: '' });
  try {
    const rejected: MeterDataError[] = [];
    transport.on('reject', (error) => rejected.push(error));
    const closedWith = new Promise<Error | undefined>((resolve) => transport.once('close', resolve));
    const reportClosed = peer.closed();
    const peerClosed = peer.closed();
    await transport.open();
    assert.ok((await reportClosed) < 32 * 1024 * 1024, 'the report was cut');
    const reason = await closedWith;
    assert.match(String(reason?.message), /longer than/);
    assert.deepEqual(
      rejected.map((error) => error.kind),
      ['overflow', 'overflow'],
      'the report and the event',
    );
    const sent = await peerClosed;
    assert.ok(sent < 32 * 1024 * 1024, `the peer wrote ${sent} bytes`);
    assert.ok(OUTGOING_EVENT_LIMIT <= 64 * 1024);
  } finally {
    await transport.close();
    await peer.close();
  }
});

/** VmRSS (resident now) or VmHWM (the highest resident size so far) of a process, in bytes (proc(5)). */
function residentBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const line = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line![1]) * 1024;
}

test('an action whose target answers 300 MB leaves the daemon memory flat and is counted', async (t) => {
  const peer = await hugePeer();
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-outgoing-'));
  const daemon = await startDaemonProcess(state, { METER_GATEWAY_LICENSE_TYPE: 'PRO' });
  try {
    const definition = {
      actions: [{ id: 'big', requests: [{ http: { url: `${peer.url}/big`, timeout: 60 } }] }],
    };
    const posted = await send(daemon.baseUrl, 'POST', '/api/v1/actions', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(definition),
    });
    assert.equal(posted.status, 200, posted.text);
    const pid = daemon.child.pid!;
    const before = residentBytes(pid);
    const highWaterBefore = residentBytes(pid, 'VmHWM');
    // The definition reaches the actions output through the config store: call once it is there.
    const called = await waitFor(
      'the action to be known',
      () => send(daemon.baseUrl, 'POST', '/api/v1/actions/call?id=big'),
      (reply) => reply.status !== 404,
    );
    assert.equal(called.status, 202, called.text);
    let peak = before;
    interface ActionsState {
      actions?: Record<string, { runs: number }>;
      http?: { answers_cut: number; timeouts: number };
    }
    const actions = async (): Promise<ActionsState | undefined> => {
      peak = Math.max(peak, residentBytes(pid));
      const system = (await send(daemon.baseUrl, 'GET', '/api/v1/system')).json();
      return system.services?.actions as ActionsState | undefined;
    };
    const done = await waitFor('the action to finish', actions, (s) => (s?.actions?.big?.runs ?? 0) >= 1, {
      deadlineMs: 120_000,
      intervalMs: 100,
    });
    // A high-water mark above the one before the call was reached by the call: the exact peak.
    const highWater = residentBytes(pid, 'VmHWM');
    if (highWater > highWaterBefore) peak = Math.max(peak, highWater);
    const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    t.diagnostic(`daemon RSS before ${mb(before)}, peak ${mb(peak)}; peer wrote ${peer.sent.join(', ')} B`);
    assert.deepEqual(done?.http, { answers_cut: 1, timeouts: 0 });
    const after = residentBytes(pid);
    t.diagnostic(`daemon RSS after ${mb(after)}`);
    assert.ok(peak - before < 48 * 1024 * 1024, `RSS grew from ${mb(before)} to ${mb(peak)}`);
  } finally {
    await daemon.stop();
    await peer.close();
    rmSync(state, { recursive: true, force: true });
  }
});
