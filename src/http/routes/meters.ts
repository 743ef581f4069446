import type { ServerResponse } from 'node:http';
import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import { parseSource } from '../../meter/source.js';
import type { MeterHandle } from '../../reading/meter-registry.js';
import type { ReportCache } from '../../reading/report-cache.js';
import { buildReport } from '../../reading/report.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { jsonHeaders, sendJson, sendJsonText } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import type { MeterListEntry } from '../../contracts/meters.js';
import type { LiveHub } from './live.js';
import { registerMeterDiscoverRoute } from './meter-discover.js';
import { registerMeterTestRoute } from './meter-test.js';

/**
 * The meters of the daemon (docs/architecture.md#several-meters): GET /api/v1/meters lists them;
 * /api/v1/meters/{id}/report and /live give one meter's report and live stream in the shapes of
 * /api/v1/report and /api/v1/live. `main` answers exactly what those answer.
 */

/** The kind of a source URI (simulator, serial, tcp, file, remote, modbus-rtu, modbus-tcp). */
function sourceKind(meter: MeterHandle): string {
  const source = meter.source();
  if (source === undefined) return 'virtual';
  try {
    return parseSource(source).kind;
  } catch {
    return 'unknown';
  }
}

function meterView(meter: MeterHandle, now: number): MeterListEntry {
  const { store } = meter;
  const reading = store.latestAt(now);
  const last = store.lastReading;
  const state = store.meterAt(now);
  const value = (obis: string) => reading?.values.get(obis)?.value ?? null;
  const counters = store.counters;
  return {
    id: meter.id,
    name: meter.name,
    ...(meter.nameKey !== undefined ? { name_key: meter.nameKey } : {}),
    role: meter.role,
    kind: meter.kind,
    source_kind: sourceKind(meter),
    ...(meter.expression !== undefined ? { expression: meter.expression } : {}),
    status: state.status,
    interface: state.interface,
    last_reading: last ? new Date(last.receivedAt).toISOString() : null,
    power_in: value('1.7.0'),
    power_out: value('2.7.0'),
    energy_in: value('1.8.0'),
    energy_out: value('2.8.0'),
    counters: {
      frames_ok: counters.framesOk,
      crc_errors: counters.crcErrors,
      parse_errors: counters.parseErrors,
      overflows: counters.overflows,
      encryption_errors: counters.encryptionErrors,
      timeouts: counters.timeouts,
    },
  };
}

/** The meter a path names, or a 404 naming the known ids. */
export function meterOf(ctx: AppContext, id: string): MeterHandle {
  const meter = ctx.meters.get(id);
  if (meter) return meter;
  const known = ctx.meters.ids();
  throw new HttpError(404, 'not_found', `unknown meter ${JSON.stringify(id)}; known: ${known.join(', ')}`, {
    meter: id,
    known,
  });
}

function idOf(request: ApiRequest): string {
  const segment = request.path.split('/')[4] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * One meter's report in the shape of /api/v1/report: the primary's is the cached one /api/v1/report
 * serves, byte for byte; a further meter's is built from its store.
 */
function sendMeterReport(
  ctx: AppContext,
  cache: ReportCache,
  meter: MeterHandle,
  response: ServerResponse,
): void {
  if (meter.kind === 'primary') {
    const { body } = cache.get();
    return sendJsonText(response, 200, body, jsonHeaders(body.length));
  }
  const now = ctx.now();
  const { store } = meter;
  const reading = store.latestAt(now);
  const report = buildReport({
    reading,
    reportId: store.reportId,
    interval: store.interval,
    meter: store.meterAt(now),
    system: ctx.system,
    convFactor: undefined,
    now,
  });
  sendJson(response, 200, report);
}

export function registerMetersRoutes(
  router: Router,
  ctx: AppContext,
  core: { report: ReportCache; live: LiveHub },
): void {
  registerMeterTestRoute(router, ctx);
  registerMeterDiscoverRoute(router, ctx);
  router.add(
    'GET',
    '/api/v1/meters',
    (_request, response) => {
      const now = ctx.now();
      sendJson(
        response,
        200,
        ctx.meters.list().map((meter) => meterView(meter, now)),
      );
    },
    {
      doc: {
        summary: 'Every meter: id, name, role, source kind, status, last reading, error counters',
        responses: {
          200: { description: 'meters, the primary (main) first', schema: contract('MeterListSchema') },
        },
      },
    },
  );
  const notFound = {
    description: 'unknown meter id (not_found, details.known lists the ids)',
    schema: ERROR_REF,
  };
  router.add(
    'GET',
    '/api/v1/meters/{id}/report',
    (request, response) => sendMeterReport(ctx, core.report, meterOf(ctx, idOf(request)), response),
    {
      license: 'PLUS',
      doc: {
        summary: "One meter's report, in the shape of /api/v1/report",
        responses: {
          200: { description: 'report envelope', schema: contract('ReportViewSchema') },
          404: notFound,
        },
      },
    },
  );
  router.add(
    'GET',
    '/api/v1/meters/{id}/live',
    (request, response) => core.live.hubOf(meterOf(ctx, idOf(request))).connect(request, response),
    {
      doc: {
        summary: "One meter's live measurements (Server-Sent Events, `event: live`), as /api/v1/live",
        responses: {
          200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
          404: notFound,
          503: { description: 'too many live clients (service_unavailable)', schema: ERROR_REF },
        },
      },
    },
  );
}
