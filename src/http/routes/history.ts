import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import { ERROR_REF } from '../api-schemas.js';
import { sendCsvDownload } from '../csv-response.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, JsonSchema, RouteDoc, Router } from '../router.js';
import { HISTORY_CSV_COLUMNS, historyCsv, historyCsvName } from '../../history/history-csv.js';
import type { HistoryView, RecentView } from '../../contracts/history.js';
import type { CapacityChargeContributor } from '../../history/costs.js';
import { withCosts, type TierQuery } from '../../history/history-costs.js';
import { pointView } from '../../history/point.js';
import { parseHistoryQuery, type HistoryQuery } from '../../history/query-params.js';
import type { HistoryRecorder } from '../../history/recorder.js';
import { RECENT_SECONDS, type RecentPower } from '../../history/recent-power.js';

const TIME_PARAMETER: JsonSchema = {
  type: 'string',
  description:
    'Unix seconds or ISO 8601 date-time (with Z or an offset; without one local time; a date alone is local midnight)',
};

const FORMATS = ['json', 'csv'];

/** The query's from, to, resolution and format, or a 400 naming every invalid one (details.fields). */
function historyQueryOf(request: ApiRequest, now: number): { query: HistoryQuery; format: string } {
  const { query, issues } = parseHistoryQuery(request.query, now);
  const format = request.query.get('format') ?? 'json';
  if (!FORMATS.includes(format))
    issues.push({ field: 'format', message: 'must be json or csv', value: format });
  if (!query || issues.length > 0) {
    const names = issues.map((issue) => issue.field).join(', ');
    throw new HttpError(400, 'validation_failed', `invalid query parameters: ${names}`, { fields: issues });
  }
  return { query, format };
}

/** The history of the meter `meter` names, or a 404 naming the known meters. */
function recorderNamed(
  ctx: AppContext,
  recorderOf: (id: string) => HistoryRecorder | undefined,
  meter: string,
): HistoryRecorder {
  const chosen = recorderOf(meter);
  if (chosen) return chosen;
  const known = ctx.meters.ids();
  const message = `unknown meter ${JSON.stringify(meter)}; known: ${known.join(', ')}`;
  throw new HttpError(404, 'not_found', message, { meter, known });
}

/** The histories GET /api/v1/history reads, and the capacity charge its costs include. */
interface HistorySources {
  /** The primary's history; the costs read their quarter hours from it. */
  recorder: HistoryRecorder;
  recorderOf: (id: string) => HistoryRecorder | undefined;
  capacity: CapacityChargeContributor | undefined;
}

/**
 * The answer of GET /api/v1/history: the points of `meter` over the query's span and resolution,
 * with their import costs and export credits while services.costs.enable.
 */
async function historyView(
  ctx: AppContext,
  sources: HistorySources,
  meter: string,
  query: HistoryQuery,
): Promise<HistoryView> {
  const chosen = recorderNamed(ctx, sources.recorderOf, meter);
  const points = await chosen.query(query.resolution, query.from, query.to);
  if (!points) throw new HttpError(503, 'service_unavailable', 'the history store is not running');
  const answer: HistoryView = {
    ...(meter !== 'main' ? { meter } : {}),
    resolution: query.resolution,
    from: Math.floor(query.from / 1000),
    to: Math.floor(query.to / 1000),
    points: points.map(pointView),
  };
  const costs = ctx.config.config.services.costs;
  if (!costs.enable) return answer;
  // Days and hours are priced from the quarter hours of the same meter.
  const quarters: TierQuery = (...args) => chosen.query(...args);
  return withCosts(answer, costs, points, quarters, sources.capacity, ctx.now(), ctx.prices);
}

const HISTORY_DOC: RouteDoc = {
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
};

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
  const sources: HistorySources = { recorder, recorderOf, capacity };
  router.add(
    'GET',
    '/api/v1/history',
    async (request, response) => {
      const { query, format } = historyQueryOf(request, ctx.now());
      const answer = await historyView(ctx, sources, request.query.get('meter') ?? 'main', query);
      if (format === 'csv') sendCsvDownload(response, historyCsvName(answer), historyCsv(answer));
      else sendJson(response, 200, answer);
    },
    { doc: HISTORY_DOC },
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
