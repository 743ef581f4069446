import { contract } from '../contract-ref.js';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { COMMON_HEADERS, sendJson } from '../respond.js';
import type { JsonSchema, Router } from '../router.js';
import { HISTORY_CSV_COLUMNS, historyCsv, historyCsvName } from '../../history/history-csv.js';
import type { HistoryView, RecentView } from '../../contracts/history.js';
import type { CapacityChargeContributor } from '../../history/costs.js';
import { withCosts } from '../../history/history-costs.js';
import { pointView } from '../../history/point.js';
import { parseHistoryQuery } from '../../history/query-params.js';
import type { HistoryRecorder } from '../../history/recorder.js';
import { RECENT_SECONDS, type RecentPower } from '../../history/recent-power.js';

const TIME_PARAMETER: JsonSchema = {
  type: 'string',
  description:
    'Unix seconds or ISO 8601 date-time (with Z or an offset; without one local time; a date alone is local midnight)',
};

const FORMATS = ['json', 'csv'];

function sendCsv(response: ServerResponse, view: HistoryView): void {
  const body = Buffer.from(historyCsv(view));
  response.writeHead(200, [
    'Content-Type',
    'text/csv; charset=utf-8; header=present',
    'Content-Disposition',
    `attachment; filename="${historyCsvName(view)}"`,
    'Content-Length',
    String(body.length),
    ...COMMON_HEADERS,
  ]);
  response.end(body);
}

/**
 * GET /api/v1/history: power statistics and energy deltas from the history store, as JSON or CSV;
 * GET /api/v1/history/recent: the power of the readings of the last minutes, from memory.
 */
export function registerHistoryRoutes(
  router: Router,
  ctx: AppContext,
  recorder: HistoryRecorder,
  recent: RecentPower,
  /** The history of a meter by id (`?meter=`, docs/architecture.md#several-meters); absent: main only. */
  recorderOf: (id: string) => HistoryRecorder | undefined = (id) => (id === 'main' ? recorder : undefined),
  /** The capacity charge's source (a peak guard), once one exists. */
  capacity?: CapacityChargeContributor,
): void {
  router.add(
    'GET',
    '/api/v1/history',
    async (request, response) => {
      const now = ctx.now();
      const { query, issues } = parseHistoryQuery(request.query, now);
      const format = request.query.get('format') ?? 'json';
      if (!FORMATS.includes(format))
        issues.push({ field: 'format', message: 'must be json or csv', value: format });
      if (!query || issues.length > 0) {
        const names = issues.map((issue) => issue.field).join(', ');
        throw new HttpError(400, 'validation_failed', `invalid query parameters: ${names}`, {
          fields: issues,
        });
      }
      const meter = request.query.get('meter') ?? 'main';
      const chosen = recorderOf(meter);
      if (!chosen) {
        const known = ctx.meters.ids();
        throw new HttpError(
          404,
          'not_found',
          `unknown meter ${JSON.stringify(meter)}; known: ${known.join(', ')}`,
          {
            meter,
            known,
          },
        );
      }
      const points = await chosen.query(query.resolution, query.from, query.to);
      if (!points) throw new HttpError(503, 'service_unavailable', 'the history store is not running');
      let answer: HistoryView = {
        ...(meter !== 'main' ? { meter } : {}),
        resolution: query.resolution,
        from: Math.floor(query.from / 1000),
        to: Math.floor(query.to / 1000),
        points: points.map(pointView),
      };
      const costs = ctx.config.config.services.costs;
      if (costs.enable)
        answer = await withCosts(
          answer,
          costs,
          points,
          (...args) => recorder.query(...args),
          capacity,
          ctx.now(),
          ctx.prices,
        );
      if (format === 'csv') sendCsv(response, answer);
      else sendJson(response, 200, answer);
    },
    {
      doc: {
        summary: 'Power (min/mean/max) and energy per 1-minute, 15-minute or daily bucket',
        query: {
          from: {
            ...TIME_PARAMETER,
            description: `${TIME_PARAMETER.description as string}; default to - 24 h`,
          },
          to: { ...TIME_PARAMETER, description: `${TIME_PARAMETER.description as string}; default now` },
          resolution: {
            type: 'string',
            enum: ['1m', '15m', '1d', 'auto'],
            description:
              'auto (default): 1m for spans up to 48 h, 15m up to 31 days, 1d beyond; the next coarser one when from is older than the finer tier keeps (48 h, 366 days)',
          },
          meter: { type: 'string', description: 'meter id (GET /api/v1/meters); default main, the primary' },
          format: {
            type: 'string',
            enum: FORMATS,
            description: `json (default) or csv: a download (Content-Disposition attachment), a header line and one line per point, columns ${HISTORY_CSV_COLUMNS.join(', ')} (with services.costs.enable also import_cost_<currency>, export_credit_<currency>); time is ISO 8601 with the local offset, an empty cell a null`,
          },
        },
        responses: {
          200: {
            description: 'history points',
            schema: contract('HistoryViewSchema'),
            alternatives: { 'text/csv': { type: 'string' } },
          },
          400: {
            description: 'invalid from, to, resolution or format (validation_failed, details.fields)',
            schema: ERROR_REF,
          },
          503: { description: 'the history store is not running (service_unavailable)', schema: ERROR_REF },
        },
      },
    },
  );
  router.add(
    'GET',
    '/api/v1/history/recent',
    (_request, response) => {
      const answer: RecentView = recent.view(ctx.now());
      sendJson(response, 200, answer);
    },
    {
      doc: {
        summary: `Power of the readings of the last ${RECENT_SECONDS} s (kept in memory, for charts that start filled)`,
        responses: { 200: { description: 'recent readings', schema: contract('RecentViewSchema') } },
      },
    },
  );
}
