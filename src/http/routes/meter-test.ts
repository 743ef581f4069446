import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import type { MeterSettings } from '../../config/types.js';
import { componentLogger } from '../../log.js';
import { MeterInput } from '../../meter/meter-input.js';
import { interfaceOfSource, parseSource, redactSource, SourceError } from '../../meter/source.js';
import { buildReport } from '../../reading/report.js';
import { ReadingStore } from '../../reading/store.js';
import { ERROR_REF } from '../api-schemas.js';
import type { MeterTestAnswer, MeterTestRequest } from '../../contracts/meters.js';
import { METER_TEST_DEFAULT_WAIT_S } from '../../contracts/values.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';

/**
 * POST /api/v1/meters/test {source, wait}: "test this source" of the meters settings
 * (docs/architecture.md#several-meters). The source is opened by a meter input of its own, on a
 * store of its own, until the first reading (answered in the report's shape) or `wait` seconds
 * (answered with the meter status and the exact error of the last attempt); then it is closed.
 * Nothing is stored and no running meter is touched.
 */
export function registerMeterTestRoute(router: Router, ctx: AppContext): void {
  let running = false;
  router.add(
    'POST',
    '/api/v1/meters/test',
    async (request, response) => {
      const body = request.body as MeterTestRequest;
      const { source } = body;
      try {
        parseSource(source);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        throw new HttpError(400, 'validation_failed', 'invalid source', {
          fields: [{ field: 'source', message: error.reason, value: redactSource(source).shown }],
        });
      }
      const wait = body.wait ?? METER_TEST_DEFAULT_WAIT_S;
      if (running) throw new HttpError(429, 'too_many_requests', 'a source test is already running');
      running = true;
      try {
        sendJson(response, 200, await testSource(ctx, source, wait));
      } finally {
        running = false;
      }
    },
    {
      body: 'json',
      bodySchema: contract('MeterTestRequestSchema'),
      doc: {
        summary: 'Test a meter source: its first reading (report shape) or the exact error',
        responses: {
          200: {
            description: '{ok: true, report} or {ok: false, status, error}',
            schema: contract('MeterTestAnswerSchema'),
          },
          429: { description: 'another test is running (too_many_requests)', schema: ERROR_REF },
        },
      },
    },
  );
}

async function testSource(ctx: AppContext, source: string, waitS: number): Promise<MeterTestAnswer> {
  const store = new ReadingStore({
    staleAfterMs: waitS * 1000,
    meterInterface: interfaceOfSource(source),
    now: ctx.now,
    clock: ctx.clock,
  });
  const settings: MeterSettings = {
    source,
    conv_factor: 1,
    encryption_key: '',
    timeout: waitS,
    scalers: [],
    simulator: ctx.config.config.meter.simulator,
  };
  const service = 'meter:test';
  const input = new MeterInput(ctx, componentLogger(ctx.logger, 'meter test'), undefined, {
    store,
    settings: () => settings,
    service,
  });
  const first = new Promise<boolean>((resolve) => {
    const timer = ctx.clock.setTimeout(() => resolve(false), waitS * 1000);
    store.once('reading', () => {
      ctx.clock.clearTimeout(timer);
      resolve(true);
    });
  });
  try {
    await input.start();
    await input.reconcile({ slice: settings });
    const read = await first;
    const now = ctx.now();
    if (read) {
      const report = buildReport({
        reading: store.latestAt(now),
        reportId: store.reportId,
        interval: undefined,
        meter: store.meterAt(now),
        system: ctx.system,
        convFactor: undefined,
        now,
      });
      return { ok: true, ...report };
    }
    const status = ctx.services.get(service);
    return {
      ok: false,
      status: store.meterAt(now).status,
      error: status?.error ?? `no reading within ${waitS} s`,
    };
  } finally {
    await input.stop();
    store.close();
  }
}
