import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import { ReportCache } from '../../reading/report-cache.js';
import { jsonHeaders, sendJsonText } from '../respond.js';
import type { Router } from '../router.js';

/** GET /api/v1/report (spec endpoint 2); PLUS or PRO license (FREE: 404 license_required). */
export function registerReportRoutes(router: Router, ctx: AppContext): ReportCache {
  const cache = new ReportCache(ctx);
  // The header block follows the cached body: built once per new report text, not per request.
  let served: Buffer | undefined;
  let headers: string[] = [];
  router.add(
    'GET',
    '/api/v1/report',
    (_request, response) => {
      const { body } = cache.get();
      if (body !== served) {
        served = body;
        headers = jsonHeaders(body.length);
      }
      sendJsonText(response, 200, body, headers);
    },
    {
      license: 'PLUS',
      doc: {
        summary: 'Latest measurement report',
        responses: { 200: { description: 'report envelope', schema: contract('ReportViewSchema') } },
      },
    },
  );
  return cache;
}
