import type { AppContext } from '../../context.js';
import type { HistoryRecorder, QuarterRecord } from '../../history/recorder.js';
import { parseHistoryQuery, type HistoryQuery } from '../../history/query-params.js';
import { quartersCsv } from '../../history/quarters-csv.js';
import { ERROR_REF } from '../api-schemas.js';
import { sendCsvDownload } from '../csv-response.js';
import { HttpError } from '../errors.js';
import type { ApiRequest, RouteDoc, Router } from '../router.js';

const MAX_SPAN_MS = 31 * 86_400_000;
/** EAN-18 (GS1 GSRN) of a Belgian access point: 18 digits, starting 54. */
const EAN = /^\d{18}$/;

/** The query's span (at most 31 days), EAN and format, or a 400 naming every invalid one. */
function quartersQueryOf(request: ApiRequest, now: number): { query: HistoryQuery; ean: string } {
  const { query, issues } = parseHistoryQuery(request.query, now);
  const format = request.query.get('format') ?? 'dso_be';
  if (format !== 'dso_be') issues.push({ field: 'format', message: 'must be dso_be', value: format });
  const ean = request.query.get('ean') ?? '';
  if (ean !== '' && !EAN.test(ean)) issues.push({ field: 'ean', message: 'must be 18 digits', value: ean });
  if (query && query.to - query.from > MAX_SPAN_MS)
    issues.push({
      field: 'from',
      message: 'the span is at most 31 days',
      value: request.query.get('from') ?? '',
    });
  if (!query || issues.length > 0) {
    const names = issues.map((issue) => issue.field).join(', ');
    throw new HttpError(400, 'validation_failed', `invalid query parameters: ${names}`, { fields: issues });
  }
  return { query, ean };
}

/** The quarter hours starting in [from, to), and the one before the first: the base of its volumes. */
async function quartersOf(recorder: HistoryRecorder, query: HistoryQuery): Promise<QuarterRecord[]> {
  const first = Math.ceil(query.from / 900_000) * 900 - 900;
  const last = Math.ceil(query.to / 900_000) * 900 - 900;
  const records = await recorder.quarters(first - 900, last, Math.ceil((last - first) / 900) + 2);
  if (!records) throw new HttpError(503, 'service_unavailable', 'the history store is not running');
  return records;
}

const QUARTERS_DOC: RouteDoc = {
  summary: "A meter's quarter hours as a distribution system operator's per-quarter CSV (format dso_be)",
  query: {
    from: {
      type: 'string',
      description: 'Unix seconds or ISO 8601 (local time without an offset); default to - 24 h',
    },
    to: {
      type: 'string',
      description: 'Unix seconds or ISO 8601; default now; at most 31 days after from',
    },
    meter: { type: 'string', description: 'meter id; default main' },
    ean: {
      type: 'string',
      description: 'EAN of the access point (18 digits) for the EAN column; default empty',
    },
    format: {
      type: 'string',
      enum: ['dso_be'],
      description:
        'dso_be (default): `;` separated, decimal comma, local time, registers Afname/Injectie Dag/Nacht',
    },
  },
  responses: {
    200: { description: 'the CSV', contentType: 'text/csv', schema: { type: 'string' } },
    400: { description: 'invalid from, to, ean or format (validation_failed)', schema: ERROR_REF },
    404: { description: 'unknown meter', schema: ERROR_REF },
    503: { description: 'the history store is not running', schema: ERROR_REF },
  },
};

/**
 * GET /api/v1/history/quarters.csv?from&to&meter&ean&format=dso_be: a meter's quarter hours from the
 * extended 15-minute tier as a distribution system operator's per-quarter CSV (history/quarters-csv.ts).
 */
export function registerQuartersCsvRoute(
  router: Router,
  ctx: AppContext,
  recorderOf: (id: string) => HistoryRecorder | undefined,
): void {
  router.add(
    'GET',
    '/api/v1/history/quarters.csv',
    async (request, response) => {
      const { query, ean } = quartersQueryOf(request, ctx.now());
      const meter = request.query.get('meter') ?? 'main';
      const recorder = recorderOf(meter);
      if (!recorder)
        throw new HttpError(404, 'not_found', `unknown meter ${JSON.stringify(meter)}`, {
          meter,
          known: ctx.meters.ids(),
        });
      const records = await quartersOf(recorder, query);
      const name = `quarters-${meter}-${new Date(query.from).toISOString().slice(0, 10)}.csv`;
      const csv = quartersCsv(
        records.map((record) => record.counters),
        meter,
        ean,
      );
      sendCsvDownload(response, name, csv);
    },
    { doc: QUARTERS_DOC },
  );
}
