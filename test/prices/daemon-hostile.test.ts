// Hostile price documents against the daemon process: the ENTSO-E base URL points at a loopback
// server that answers, one settings write after another, a 50 MB body, a 10,000-deep XML, a wrong
// namespace, 10^6 points (streamed), NaN prices and a truncated document. Each time the process
// stays up (GET /api/v1/report answers), no day file is written, and the source's status in
// GET /api/v1/system and in GET /api/v1/prices (what the web interface's price card shows) names
// the problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PRICE_BODY_LIMIT } from '../../src/prices/price-store.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { a44, fullPeriod } from './fixtures.js';

process.env.TZ = 'Europe/Brussels';

const NS = 'urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:3';
const iso = (t: string) =>
  `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}Z`;

/** A whole day's A44 for the request's period. */
function day(url: URL, price: (position: number) => number | string = (p) => 40 + p): string {
  const from = iso(url.searchParams.get('periodStart')!);
  const to = iso(url.searchParams.get('periodEnd')!);
  const period = fullPeriod(from, to);
  return a44([
    {
      curve: 'A01',
      periods: [
        { ...period, points: period.points.map(([position]) => [position, price(position)] as const) },
      ],
    },
  ]);
}

/** Writes `chunks()` until it returns undefined or the client is gone, minding backpressure. */
function stream(response: ServerResponse, chunk: (i: number) => string | undefined): void {
  response.writeHead(200, { 'content-type': 'application/xml' });
  let i = 0;
  const pump = (): void => {
    while (!response.destroyed) {
      const next = chunk(i++);
      if (next === undefined) return void response.end();
      if (!response.write(next)) return void response.once('drain', pump);
    }
  };
  response.on('error', () => undefined);
  pump();
}

const MB = 1024 * 1024;

/** The hostile answers, by the first path segment of the base URL, and what the status must say. */
const VARIANTS: Array<{ name: string; status: RegExp; answer(url: URL, response: ServerResponse): void }> = [
  {
    name: 'fifty-megabytes',
    status: new RegExp(`refused: answer longer than ${PRICE_BODY_LIMIT} bytes`),
    answer: (_url, response) => {
      const block = `<!-- ${'x'.repeat(MB - 9)} -->`;
      stream(response, (i) =>
        i === 0
          ? `<?xml version="1.0"?>\n<Publication_MarketDocument xmlns="${NS}">`
          : i <= 50
            ? block
            : undefined,
      );
    },
  },
  {
    name: 'deep',
    status: /refused: ENTSO-E answer nested deeper than 12 elements/,
    answer: (_url, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(
        `<?xml version="1.0"?>\n<Publication_MarketDocument xmlns="${NS}">${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}</Publication_MarketDocument>`,
      );
    },
  },
  {
    name: 'namespace',
    status: /refused: ENTSO-E Publication_MarketDocument in an unknown namespace/,
    answer: (url, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(day(url).replace(NS, 'urn:example:not-entsoe:7:3'));
    },
  },
  {
    // 10^6 Points do not fit in the answer limit: the answer is cut and refused by its size.
    name: 'million-points',
    status: new RegExp(`refused: answer longer than ${PRICE_BODY_LIMIT} bytes`),
    answer: (url, response) => {
      const whole = day(url);
      const head = whole.slice(0, whole.indexOf('<Point>'));
      const tail = whole.slice(whole.indexOf('</Period>'));
      const per = 1000;
      stream(response, (i) => {
        if (i === 0) return head;
        if (i > 1_000_000 / per) return i === 1_000_000 / per + 1 ? tail : undefined;
        let text = '';
        for (let p = (i - 1) * per + 1; p <= i * per; p += 1)
          text += `<Point><position>${p}</position><price.amount>1</price.amount></Point>`;
        return text;
      });
    },
  },
  {
    name: 'nan',
    status: /refused: ENTSO-E Point 13: price\.amount "NaN" is not a number/,
    answer: (url, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(day(url, (position) => (position === 13 ? 'NaN' : 40 + position)));
    },
  },
  {
    // Cut right after a whole Point: a lenient reader would take it for a shorter day.
    name: 'truncated',
    status: /refused: ENTSO-E answer is not well-formed XML/,
    answer: (url, response) => {
      const whole = day(url);
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(whole.slice(0, whole.indexOf('</Point>', whole.length / 2) + '</Point>'.length));
    },
  },
];

test(
  'daemon: hostile price documents never stop the process, never store a partial day, and the status names each',
  { timeout: 180_000 },
  async (t) => {
    const state = tempDir('mg-prices-hostile-', t);
    const asked: string[] = [];
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const name = url.pathname.split('/')[1] ?? '';
      asked.push(name);
      request.resume();
      const variant = VARIANTS.find((one) => one.name === name);
      if (!variant) {
        response.writeHead(404);
        response.end();
        return;
      }
      variant.answer(url, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.on('clientError', () => undefined);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const daemon = await startDaemonProcess(state, {
      TZ: 'Europe/Brussels',
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'entsoe',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: '10YBE----------2',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_TOKEN: 'test-token',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENTSOE: `${base}/start/api`,
    });
    t.after(() => daemon.stop());
    const json = async (path: string) => {
      const reply = await fetch(`${daemon.baseUrl}${path}`);
      assert.equal(reply.status, 200, `${path} answers`);
      return (await reply.json()) as Record<string, unknown>;
    };
    const systemStatus = async () =>
      ((await json('/api/v1/system'))['services'] as Record<string, { status?: string; failures?: number }>)[
        'prices'
      ];
    const dayFiles = () => {
      try {
        return readdirSync(join(state, 'prices')).filter((name) => name.endsWith('.json'));
      } catch {
        return [];
      }
    };
    await waitFor('the first answer (404)', systemStatus, (status) => /HTTP 404/.test(status?.status ?? ''));
    let failures = (await systemStatus())!.failures ?? 0;
    for (const variant of VARIANTS) {
      const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          services: { costs: { source: { urls: { entsoe: `${base}/${variant.name}/api` } } } },
        }),
      });
      assert.ok(put.status === 200 || put.status === 202, `settings write ${put.status}`);
      await put.body?.cancel();
      const status = await waitFor(
        `the status of ${variant.name}`,
        systemStatus,
        (seen) => variant.status.test(seen?.status ?? '') && (seen?.failures ?? 0) > failures,
        { deadlineMs: 60_000 },
      );
      failures = status!.failures ?? 0;
      assert.ok(asked.includes(variant.name), `${variant.name} was asked`);
      assert.equal(daemon.child.exitCode, null, `the daemon runs after ${variant.name}`);
      assert.equal(daemon.child.signalCode, null);
      await json('/api/v1/report');
      const prices = await json('/api/v1/prices?day=today');
      assert.match(String(prices['status']), variant.status, `the price view's status after ${variant.name}`);
      assert.ok(
        (prices['slots'] as Array<{ spot: number | null }>).every((slot) => slot.spot === null),
        `no quarter of today priced after ${variant.name}`,
      );
      assert.deepEqual(dayFiles(), [], `no day file after ${variant.name}`);
    }
    assert.match(
      daemon.output(),
      /prices entsoe \d{4}-\d\d-\d\d: refused: ENTSO-E answer is not well-formed XML/,
    );
  },
);
