import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import type { MeterState } from '../reading/meter-state.js';
import type { Reading } from '../reading/reading.js';
import { buildReport } from '../reading/report.js';
import { REPORT_SCHEMA } from './api-schemas.js';
import { jsonHeaders, sendJsonText } from './respond.js';
import type { Router } from './router.js';

interface Serialised {
  reading: Reading | undefined;
  meter: MeterState;
  config: AppConfig;
  second: number;
  body: Buffer;
  headers: string[];
}

/**
 * The report text of GET /api/v1/report, serialised once and shared by every request until
 * something in them changes: a new reading (or the latest going stale), the meter state, the
 * configuration (conv_factor, license), or the wall-clock second (system.date_time and
 * time_since_boot have one-second resolution). The store replaces its `latest` and `meter`
 * objects and the config store its `config` object on every change, so comparing identities is
 * the invalidation; no listener is needed.
 */
export class ReportCache {
  private current: Serialised | undefined;
  /** How many times the report was serialised (tests: once per change, not per request). */
  builds = 0;

  constructor(private readonly ctx: AppContext) {}

  /** The report as UTF-8 bytes and the headers of a 200 response carrying them. */
  get(): { body: Buffer; headers: string[] } {
    const { store } = this.ctx;
    const now = this.ctx.now();
    const second = Math.floor(now / 1000);
    const reading = store.latestAt(now);
    const meter = store.meterAt(now);
    const config = this.ctx.config.config;
    const cached = this.current;
    if (
      cached &&
      cached.reading === reading &&
      cached.meter === meter &&
      cached.config === config &&
      cached.second === second
    ) {
      return cached;
    }
    const text = JSON.stringify(
      buildReport({
        reading,
        reportId: store.reportId,
        interval: store.interval,
        meter,
        system: this.ctx.system,
        convFactor: config.meter.conv_factor,
        now,
      }),
    );
    const body = Buffer.from(text);
    this.builds += 1;
    this.current = { reading, meter, config, second, body, headers: jsonHeaders(body.length) };
    return this.current;
  }
}

/** GET /api/v1/report; PLUS or PRO license (FREE: 404 license_required). */
export function registerReportRoutes(router: Router, ctx: AppContext): ReportCache {
  const cache = new ReportCache(ctx);
  router.add(
    'GET',
    '/api/v1/report',
    (_request, response) => {
      const { body, headers } = cache.get();
      sendJsonText(response, 200, body, headers);
    },
    {
      license: 'PLUS',
      doc: {
        summary: 'Latest measurement report',
        responses: { 200: { description: 'report envelope', schema: REPORT_SCHEMA } },
      },
    },
  );
  return cache;
}
