import { contract } from '../contract-ref.js';
import type { LogEntry, RecentLog } from '../../log-transports.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import type { LogLevelName, LogLineView, LogView } from '../../contracts/status.js';

export const LOG_PATH = '/api/v1/log';

/** Most severe first: `level=warn` answers warnings and errors. */
const LEVELS: readonly LogLevelName[] = ['error', 'warn', 'info', 'debug'];

function lineOf(entry: LogEntry): LogLineView {
  const { component, ...fields } = entry.meta;
  const line: LogLineView = { time: entry.time.toISOString(), level: entry.level, message: entry.message };
  if (typeof component === 'string' && component !== '') line.component = component;
  if (Object.keys(fields).length > 0) line.fields = fields;
  return line;
}

function fieldError(field: string, message: string, value: string): HttpError {
  return new HttpError(400, 'validation_failed', `invalid query parameters: ${field}`, {
    fields: [{ field, message, value }],
  });
}

/** The query's level (default debug: every held line) and limit (default and maximum: all held). */
function parseLogQuery(query: URLSearchParams, capacity: number): { level: LogLevelName; limit: number } {
  const levelText = query.get('level') ?? 'debug';
  const level = LEVELS.find((name) => name === levelText);
  if (!level) throw fieldError('level', `one of ${LEVELS.join(', ')}`, levelText);
  const limitText = query.get('limit');
  if (limitText === null) return { level, limit: capacity };
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > capacity)
    throw fieldError('limit', `an integer 1..${capacity}`, limitText);
  return { level, limit };
}

/**
 * GET /api/v1/log?level=&limit=: the daemon's latest log lines from the in-memory ring, oldest
 * first. Behind the same authentication as every other route when protection is on.
 */
export function registerLogRoute(router: Router, recent: RecentLog): void {
  router.add(
    'GET',
    LOG_PATH,
    (request, response) => {
      const { level, limit } = parseLogQuery(request.query, recent.capacity);
      const rank = LEVELS.indexOf(level);
      const lines = recent
        .snapshot()
        .filter((entry) => LEVELS.indexOf(entry.level) <= rank)
        .slice(-limit)
        .map(lineOf);
      const view: LogView = { level, lines, capacity: recent.capacity, total: recent.total };
      sendJson(response, 200, view);
    },
    {
      doc: {
        summary: 'Latest log lines of the daemon (in memory), oldest first',
        query: {
          level: { enum: [...LEVELS], description: 'this level and more severe ones; default debug' },
          limit: { type: 'integer', minimum: 1, description: 'at most this many (the newest)' },
        },
        responses: {
          200: { description: 'log lines', schema: contract('LogViewSchema') },
          400: { description: 'bad level or limit (validation_failed)', schema: ERROR_REF },
        },
      },
    },
  );
}
