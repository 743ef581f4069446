import { createAppContext, type AppContext } from '../../src/context.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';

/** What a synthetic meter reading carries; absent values are not sent. */
export interface MeterValues {
  pIn?: number;
  pOut?: number;
  eIn?: number;
  eOut?: number;
  id?: string;
  /** The tariff register (0-0:96.14.0), when the meter sends it. */
  tariff?: number;
}

export function meterReading(receivedAt: number, values: MeterValues): Reading {
  const entries: Record<string, [number, string]> = {};
  if (values.pIn !== undefined) entries['1.7.0'] = [values.pIn, 'kW'];
  if (values.pOut !== undefined) entries['2.7.0'] = [values.pOut, 'kW'];
  if (values.eIn !== undefined) entries['1.8.0'] = [values.eIn, 'kWh'];
  if (values.eOut !== undefined) entries['2.8.0'] = [values.eOut, 'kWh'];
  return {
    receivedAt,
    protocol: 'DSMR',
    identity: { id: values.id ?? 'E0047000123456789' },
    values: valuesOf(entries),
    mbus: [],
    ...(values.tariff === undefined ? {} : { tariff: values.tariff }),
  };
}

/** Sets the frozen test clock to `ms` (later than now). */
export function setClock(h: HttpTestContext, ms: number): void {
  h.clock.freeze();
  h.clock.advance(ms - h.clock.now());
}

/**
 * A recorder on the test context's state directory with a reading store of its own, so a second
 * recorder on the same files can stand in for the daemon after a crash of the first.
 */
export function recorderOn(h: HttpTestContext): {
  recorder: HistoryRecorder;
  ctx: AppContext;
  /** Stops the recorder (as a clean daemon stop) and the store's staleness timer. */
  close(): Promise<void>;
} {
  const ctx = createAppContext({
    config: h.ctx.config,
    logger: h.ctx.logger,
    services: h.ctx.services,
    system: h.ctx.system,
    now: h.clock.now,
    staleAfterMs: 3_600_000,
    meterInterface: 'SIMULATOR',
  });
  const recorder = new HistoryRecorder(ctx, h.ctx.logger);
  return {
    recorder,
    ctx,
    async close() {
      await recorder.stop();
      ctx.store.close();
    },
  };
}

/** Feeds a reading taken now (clock set to `at`). */
export function feed(h: HttpTestContext, ctx: AppContext, at: number, values: MeterValues): void {
  setClock(h, at);
  ctx.store.ingest(meterReading(at, values));
}

export type TestRecorder = ReturnType<typeof recorderOn>;

/**
 * Runs `body` with two recorders on one fresh state directory (the daemon, and the daemon after a
 * restart), the clock set to `start`; stops both and removes the directory afterwards.
 */
export async function withRecorders(
  start: number,
  body: (h: HttpTestContext, first: TestRecorder, second: TestRecorder) => Promise<void>,
): Promise<void> {
  const h = await startHttpContext();
  const first = recorderOn(h);
  const second = recorderOn(h);
  try {
    setClock(h, start);
    await body(h, first, second);
  } finally {
    await first.close();
    await second.close();
    await h.close();
  }
}
