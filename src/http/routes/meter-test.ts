import { posix } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import { delay } from '../../clock.js';
import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import type { MeterSettings } from '../../config/types.js';
import { componentLogger } from '../../log.js';
import { IGNORED_STATUS } from '../../meter/meter-facts.js';
import { MeterInput } from '../../meter/meter-input.js';
import {
  interfaceOfSource,
  parseSource,
  redactSource,
  SourceError,
  type MeterSource,
} from '../../meter/source.js';
import { buildReport } from '../../reading/report.js';
import { ReadingStore } from '../../reading/store.js';
import { ERROR_REF } from '../api-schemas.js';
import type { MeterTestAnswer } from '../../contracts/meters.js';
import { METER_TEST_DEFAULT_WAIT_S } from '../../contracts/values.js';
import { HttpError } from '../errors.js';
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
  router.route(
    {
      method: 'POST',
      path: '/api/v1/meters/test',
      summary: 'Test a meter source: its first reading (report shape) or the exact error',
      body: contract('MeterTestRequestSchema'),
      response: {
        200: {
          description: '{ok: true, report} or {ok: false, status, error}',
          schema: contract('MeterTestAnswerSchema'),
        },
        429: { description: 'another test is running (too_many_requests)', schema: ERROR_REF },
      },
    },
    async ({ body, request }) => {
      const { source } = body;
      let parsed: MeterSource;
      const invalid = (reason: string) =>
        new HttpError(400, 'validation_failed', 'invalid source', {
          fields: [{ field: 'source', message: reason, value: redactSource(source).shown }],
        }).withKey('error.invalid_source');
      try {
        parsed = parseSource(source);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        throw invalid(error.reason);
      }
      if (parsed.kind === 'file') throw invalid('a file source cannot be tested: only meters and devices');
      const path = parsed.kind === 'serial' || parsed.kind === 'modbus-rtu' ? parsed.path : undefined;
      if (path !== undefined && !(path.startsWith('/dev/') && posix.normalize(path) === path))
        throw invalid(`device must be ${DEVICE_RULE}`);
      const wait = body.wait ?? METER_TEST_DEFAULT_WAIT_S;
      if (running)
        throw new HttpError(429, 'too_many_requests', 'a source test is already running').withKey(
          'error.test_running',
        );
      running = true;
      try {
        if (path !== undefined && !isCharacterDevice(path)) {
          // Answered after the same wait as a device that does not answer: the time tells nothing either.
          await delay(ctx.clock, wait * 1000, request.shutdown);
          return { status: 200, body: cannotOpen(source, wait) };
        }
        return { status: 200, body: await testSource(ctx, source, wait) };
      } finally {
        running = false;
      }
    },
  );
}

/**
 * The one failure answer: whether a device node exists, a port is open or a host answers with
 * something else than a meter is not told, so the endpoint cannot be used to scan the device's file
 * system or the network (docs/architecture.md#hostile-input). The meter input's own error is logged.
 */
function cannotOpen(source: string, waitS: number): MeterTestAnswer {
  return {
    ok: false,
    status: 'NOT CONNECTED',
    error: `cannot open ${redactSource(source).shown}: no reading within ${waitS} s`,
    // The error's key beside it (docs/architecture.md#server-message-keys).
    error_key: 'meters.test_no_reading',
    error_args: { source: redactSource(source).shown, seconds: waitS },
  };
}

const DEVICE_RULE = 'a device node below /dev/, like /dev/ttyUSB0';

/** Whether `path`, its links resolved, is a character device below /dev/ (a serial port). */
function isCharacterDevice(path: string): boolean {
  try {
    const real = realpathSync(path);
    return real.startsWith('/dev/') && statSync(real).isCharacterDevice();
  } catch {
    return false;
  }
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
  const input = new MeterInput(ctx, componentLogger(ctx.logger, 'meter test'), undefined, { store, service });
  const first = new Promise<boolean>((resolve) => {
    const timer = ctx.clock.setTimeout(() => resolve(false), waitS * 1000);
    store.once('reading', () => {
      ctx.clock.clearTimeout(timer);
      resolve(true);
    });
  });
  try {
    // Its status goes nowhere: the answer says what the test found.
    await input.start(IGNORED_STATUS);
    await input.apply({ slice: settings });
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
    return cannotOpen(source, waitS);
  } finally {
    await input.stop();
    store.close();
  }
}
