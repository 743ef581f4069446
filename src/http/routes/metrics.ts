import type { AppContext } from '../../context.js';
import type { CollectorSources } from '../../metrics/collector.js';
import type { ExpositionFormat, MetricsExposition } from '../../metrics/exposition.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import type { Router } from '../router.js';

export const METRICS_PATH = '/metrics';

const OPENMETRICS = 'application/openmetrics-text';

/**
 * The format the scraper asks for by `Accept` (RFC 9110 §12.5.1): OpenMetrics when it weighs
 * application/openmetrics-text (version 1.0.0 or none given) at least as high as text/plain; the
 * Prometheus text format otherwise, also when there is no Accept header.
 */
export function formatOf(accept: string | undefined): ExpositionFormat {
  if (!accept) return 'prometheus';
  let openMetrics = -1;
  let text = -1;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const [key, value = ''] = param.split('=').map((part) => part.trim());
      if (key === 'q') q = Number.parseFloat(value) || 0;
      else if (key === 'version') version = value;
    }
    if (type === OPENMETRICS && (version === undefined || version === '1.0.0'))
      openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === '*/*' || type === 'text/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'prometheus';
}

/**
 * GET /metrics (docs/architecture.md#prometheus-metrics): Prometheus text format or OpenMetrics, built at
 * scrape time. prom-client and the collector load with the first scrape, so a gateway nobody scrapes
 * does not carry them. Off (`services.metrics.enable` false): 404 like an unknown path. With
 * `services.metrics.public` the route is open while system.protection is on (dispatch checks `open`).
 */
export function registerMetricsRoute(router: Router, ctx: AppContext, sources: CollectorSources): void {
  let loading: Promise<MetricsExposition> | undefined;
  const exposition = (): Promise<MetricsExposition> => {
    loading ??= (async () => {
      const [{ MetricsCollector }, { MetricsExposition }] = await Promise.all([
        import('../../metrics/collector.js'),
        import('../../metrics/exposition.js'),
      ]);
      return new MetricsExposition(new MetricsCollector({ now: ctx.now, ...sources }));
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  };
  router.add(
    'GET',
    METRICS_PATH,
    async (request, response) => {
      const settings = ctx.config.config.services.metrics;
      if (!settings.enable)
        throw new HttpError(404, 'not_found', 'metrics are off (services.metrics.enable)');
      const format = formatOf(request.raw.headers.accept);
      const { contentType, body } = await (await exposition()).render(format, settings.process);
      response.writeHead(200, {
        'Content-Type': contentType,
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
      });
      response.end(request.method === 'HEAD' ? undefined : body);
    },
    {
      open: (config) => config.services.metrics.public,
      doc: {
        summary: 'Prometheus metrics (text format 0.0.4, or OpenMetrics 1.0.0 by Accept)',
        responses: {
          200: {
            description: 'the metrics of every meter and of the gateway',
            contentType: 'text/plain; version=0.0.4; charset=utf-8',
            schema: { type: 'string' },
            alternatives: {
              'application/openmetrics-text; version=1.0.0; charset=utf-8': { type: 'string' },
            },
          },
          404: { description: 'metrics are off (not_found)', schema: ERROR_REF },
        },
      },
    },
  );
}
