import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { meterReading, setClock } from '../history/history-fixture.js';
import {
  pushClient,
  QUARTER_MS,
  quarterEnd,
  quarterHoursAgo,
  startMeter,
  stopMeter,
  ZERO_COUNTS,
  type TestMeter,
} from './push-fixture.js';

/** A receiver on 127.0.0.1 whose answer to each POST the test chooses; it records the JSON lines it got. */
async function receiver(
  answer: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void,
  sendDate = true,
) {
  const posts: Array<{ headers: IncomingMessage['headers']; timestamps: number[] }> = [];
  const server = createServer((request, response) => {
    response.sendDate = sendDate;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.method === 'GET') {
        response.end();
        return;
      }
      const timestamps = body
        .toString()
        .split('\n')
        .filter((line) => line !== '')
        .flatMap((line) => (JSON.parse(line) as { timestamps: number[] }).timestamps);
      posts.push({ headers: request.headers, timestamps });
      answer(request, response, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api/v1/import`,
    posts,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function withQuarters(
  count: number,
  body: (h: HttpTestContext, main: TestMeter, first: number) => Promise<void>,
): Promise<void> {
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    const first = quarterHoursAgo(count / 4 + 1);
    for (let i = 1; i <= count; i++)
      await quarterEnd(h, [{ meter: main, eIn: 100 + i }], first + i * QUARTER_MS);
    setClock(h, Date.now());
    await body(h, main, first);
  } finally {
    await stopMeter(main);
    await h.close();
  }
}

const cursorOf = (h: HttpTestContext) =>
  (JSON.parse(readFileSync(join(h.stateDir, 'push', 'fleet.json'), 'utf8')) as { cursor: number }).cursor;

test('the backlog goes oldest first in batches of batch_quarters, with the bearer token', async () => {
  const rx = await receiver((_, response) => response.writeHead(204).end());
  try {
    await withQuarters(10, async (h, main, first) => {
      const client = pushClient(
        h,
        [main],
        { kind: 'vm_import', url: rx.url, batch_quarters: 4 },
        { bearer_token: 's3cret' },
      );
      assert.equal(await client.drain(), 'empty');
      assert.deepEqual(
        rx.posts.map((p) => p.timestamps.length),
        [4, 4, 2],
      );
      const all = rx.posts.flatMap((p) => p.timestamps);
      assert.deepEqual(
        all,
        [...Array(10).keys()].map((i) => first + (i + 1) * QUARTER_MS),
      );
      assert.equal(rx.posts[0]!.headers.authorization, 'Bearer s3cret');
      assert.equal(cursorOf(h), (first + 9 * QUARTER_MS) / 1000);
    });
  } finally {
    await rx.close();
  }
});

test('429 and 5xx back off without moving the cursor; the same batch goes again and is acknowledged', async () => {
  let refusals = 3;
  const rx = await receiver((_, response) =>
    response.writeHead(refusals-- > 0 ? (refusals % 2 ? 503 : 429) : 204).end('busy'),
  );
  try {
    await withQuarters(2, async (h, main) => {
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url });
      const before = cursorOf(h);
      for (let i = 0; i < 3; i++) {
        assert.equal(await client.drain(), 'retry');
        assert.equal(cursorOf(h), before);
      }
      assert.equal(client.status().state, 'backoff');
      assert.match(client.status().last_error!, /^HTTP (429|503): busy$/);
      assert.equal(await client.drain(), 'empty');
      assert.equal(client.status().counts.retried, 3);
      assert.equal(client.status().counts.sent, 2);
      assert.deepEqual(
        rx.posts.map((p) => p.timestamps),
        Array(4).fill(rx.posts[0]!.timestamps),
      );
    });
  } finally {
    await rx.close();
  }
});

test('a redirect to another host is not followed: retried, the cursor stays', async () => {
  const rx = await receiver((_, response) =>
    response.writeHead(307, { location: 'http://192.0.2.1/api/v1/import' }).end(),
  );
  try {
    await withQuarters(2, async (h, main) => {
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url });
      const before = cursorOf(h);
      assert.equal(await client.drain(), 'retry');
      assert.equal(cursorOf(h), before);
      assert.equal(rx.posts.length, 1);
      assert.equal(client.status().counts.sent, 0);
    });
  } finally {
    await rx.close();
  }
});

test('413 halves the batch until it fits; 400 stops that batch with its reason, counted as rejected', async () => {
  const rx = await receiver((_, response, body) => {
    const lines = body
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { values: number[] });
    const samples = lines.reduce((n, l) => n + l.values.length, 0);
    if (samples > 2) response.writeHead(413).end('too large');
    else if (lines.some((l) => l.values.includes(103 * 3.6e6))) response.writeHead(400).end('bad sample');
    else response.writeHead(204).end();
  });
  try {
    await withQuarters(8, async (h, main, first) => {
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url, batch_quarters: 8 });
      assert.equal(await client.drain(), 'empty');
      const status = client.status();
      // Quarters 3 and 4 (values 103, 104) were one batch of 2, refused with 400.
      assert.equal(status.counts.dropped_rejected, 2);
      assert.equal(status.counts.sent, 6);
      assert.equal(status.last_error, 'HTTP 400: bad sample');
      assert.equal(cursorOf(h), (first + 7 * QUARTER_MS) / 1000);
    });
  } finally {
    await rx.close();
  }
});

test('401 holds the backlog (the settings are wrong), nothing is dropped', async () => {
  const rx = await receiver((_, response) => response.writeHead(401).end('no'));
  try {
    await withQuarters(2, async (h, main) => {
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url });
      const before = cursorOf(h);
      assert.equal(await client.drain(), 'held');
      assert.equal(client.status().state, 'error');
      assert.equal(cursorOf(h), before);
      assert.equal(client.status().counts.dropped_rejected, 0);
    });
  } finally {
    await rx.close();
  }
});

test('a receiver that never answers, or answers 200 with an endless body: bounded in time and memory, nothing lost', async () => {
  let mode: 'silent' | 'endless' = 'silent';
  const rx = await receiver((_, response) => {
    if (mode === 'silent') return;
    response.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (response.write(chunk));
    };
    response.on('drain', pump);
    response.on('error', () => undefined);
    pump();
  });
  try {
    await withQuarters(2, async (h, main) => {
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url }, undefined, 500);
      const before = cursorOf(h);
      assert.equal(await client.drain(), 'retry');
      assert.match(client.status().last_error!, /no answer/);
      assert.equal(cursorOf(h), before);
      mode = 'endless';
      // A 2xx is the acknowledgement; the garbage body is read up to the bound and dropped.
      assert.equal(await client.drain(), 'empty');
      assert.equal(client.status().counts.sent, 2);
    });
  } finally {
    await rx.close();
  }
});

test('quarters older than the receiver retention are counted dropped_too_old, never sent', async () => {
  // No Date header: the receiver gives no time to compare the clock with, so the test clock may run ahead.
  const rx = await receiver((_, response) => response.writeHead(204).end(), false);
  try {
    await withQuarters(4, async (h, main, first) => {
      const { mkdirSync, writeFileSync } = await import('node:fs');
      mkdirSync(join(h.stateDir, 'push'));
      writeFileSync(
        join(h.stateDir, 'push', 'fleet.json'),
        JSON.stringify({ version: 1, cursor: first / 1000 - 900, counts: ZERO_COUNTS }),
      );
      // The retention edge (one day, less the hour's margin) a minute after the end of quarter 3.
      h.clock.advance(first + 3 * QUARTER_MS + 86_400_000 - 3_600_000 + 60_000 - h.clock.now());
      const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url, retention_days: 1 });
      assert.equal(await client.drain(), 'empty');
      assert.equal(client.status().counts.dropped_too_old, 3);
      assert.equal(client.status().counts.sent, 1);
      assert.deepEqual(
        rx.posts.flatMap((p) => p.timestamps),
        [first + 4 * QUARTER_MS],
      );
    });
  } finally {
    await rx.close();
  }
});

test('413 halves live power and minute batches too: every sample arrives, none dropped', async () => {
  const accepted: number[] = [];
  const rx = await receiver((_, response, body) => {
    const lines = body
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { values: number[]; timestamps: number[] });
    if (lines.reduce((n, l) => n + l.values.length, 0) > 2) {
      response.writeHead(413).end('too large');
      return;
    }
    accepted.push(...lines.flatMap((l) => l.timestamps));
    response.writeHead(204).end();
  });
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    // Four closed minutes of readings ending 5 minutes ago: import and export mean power in each.
    const first = Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000;
    for (let i = 0; i < 4; i++) {
      setClock(h, first + i * 60_000 + 10_000);
      main.ctx.store.ingest(meterReading(first + i * 60_000 + 10_000, { pIn: 1 + i, pOut: 0, eIn: 100 }));
      setClock(h, first + (i + 1) * 60_000 + 50);
      main.recorder.tick(first + (i + 1) * 60_000 + 50);
      await main.recorder.idle();
    }
    setClock(h, Date.now());
    const client = pushClient(h, [main], { kind: 'vm_import', url: rx.url, what: ['minutes', 'power_1s'] });
    const live = Array.from({ length: 7 }, (_, i) => first + i * 1000);
    for (const at of live) client.addLive({ meter: 'main', role: 'grid', at, watts: 100 });
    assert.equal(await client.drain(), 'empty');
    const minutes = Array.from({ length: 4 }, (_, i) => first + (i + 1) * 60_000);
    assert.deepEqual(
      [...accepted].sort((a, b) => a - b),
      [...live, ...minutes.flatMap((t) => [t, t])].sort((a, b) => a - b),
    );
    assert.equal(client.status().counts.dropped_rejected, 0);
    assert.equal(client.status().counts.sent, 7 + 8);
  } finally {
    await stopMeter(main);
    await h.close();
    await rx.close();
  }
});

test('minutes after a cursor that fell behind the receiver retention are counted dropped_too_old, never sent', async () => {
  const rx = await receiver((_, response) => response.writeHead(204).end());
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    // Three minutes 25 hours ago (beyond a retention of one day) and two 10 minutes ago, each with
    // an import and an export mean power.
    const minute = (hoursAgo: number) => Math.floor((Date.now() - hoursAgo * 3_600_000) / 60_000) * 60_000;
    const old = minute(25);
    const recent = minute(10 / 60);
    const starts = [old, old + 60_000, old + 120_000, recent, recent + 60_000];
    for (const start of starts) {
      setClock(h, start + 10_000);
      main.ctx.store.ingest(meterReading(start + 10_000, { pIn: 1, pOut: 0, eIn: 100 }));
      setClock(h, start + 60_050);
      main.recorder.tick(start + 60_050);
      await main.recorder.idle();
    }
    setClock(h, Date.now());
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(h.stateDir, 'push'));
    writeFileSync(
      join(h.stateDir, 'push', 'fleet.json'),
      JSON.stringify({
        version: 1,
        cursor: Math.floor(Date.now() / QUARTER_MS) * 900,
        minutes_cursor: (old - 60_000) / 1000,
        counts: ZERO_COUNTS,
      }),
    );
    const client = pushClient(h, [main], {
      kind: 'vm_import',
      url: rx.url,
      what: ['minutes'],
      retention_days: 1,
    });
    assert.equal(await client.drain(), 'empty');
    assert.equal(client.status().counts.dropped_too_old, 6);
    assert.equal(client.status().counts.sent, 4);
    assert.deepEqual(
      [...new Set(rx.posts.flatMap((p) => p.timestamps))].sort((a, b) => a - b),
      [recent + 60_000, recent + 120_000],
    );
  } finally {
    await stopMeter(main);
    await h.close();
    await rx.close();
  }
});
