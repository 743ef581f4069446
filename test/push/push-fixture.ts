import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { PushClient, type QuarterSource } from '../../src/push/push-client.js';
import type { PushTargetSettings } from '../../src/push/settings.js';
import { meterReading, setClock } from '../history/history-fixture.js';
import type { HttpTestContext } from '../helpers/http-context.js';

export const QUARTER_MS = 900_000;

/** The counts of a cursor file that has sent nothing yet. */
export const ZERO_COUNTS = { sent: 0, batches: 0, retried: 0, dropped_too_old: 0, dropped_rejected: 0 };

/** A quarter boundary about `hoursAgo` hours before the real time (the push checks the clock against the receiver's). */
export function quarterHoursAgo(hoursAgo: number): number {
  return Math.floor((Date.now() - hoursAgo * 3_600_000) / QUARTER_MS) * QUARTER_MS;
}

export interface TestMeter {
  id: string;
  role: string;
  ctx: AppContext;
  recorder: HistoryRecorder;
}

/** A meter with its own reading store and history recorder on the test context's state folder. */
export async function startMeter(h: HttpTestContext, id: string, role: string): Promise<TestMeter> {
  const ctx = createAppContext({
    config: h.ctx.config,
    logger: h.ctx.logger,
    services: h.ctx.services,
    system: h.ctx.system,
    now: h.clock.now,
    staleAfterMs: 24 * 3_600_000,
    meterInterface: 'SIMULATOR',
  });
  const recorder = new HistoryRecorder(
    ctx,
    h.ctx.logger,
    id === 'main' ? undefined : { id, store: ctx.store },
  );
  await recorder.start();
  return { id, role, ctx, recorder };
}

export async function stopMeter(meter: TestMeter): Promise<void> {
  await meter.recorder.stop();
  meter.ctx.store.close();
}

/**
 * Registers at the end of one quarter: a reading 1 s before the boundary `end` (ms), then the
 * minute closes at the boundary. Values in kWh.
 */
export async function quarterEnd(
  h: HttpTestContext,
  meters: ReadonlyArray<{ meter: TestMeter; eIn?: number; eOut?: number }>,
  end: number,
): Promise<void> {
  setClock(h, end - 1000);
  for (const { meter, eIn, eOut } of meters)
    meter.ctx.store.ingest(
      meterReading(end - 1000, {
        ...(eIn === undefined ? {} : { eIn }),
        ...(eOut === undefined ? {} : { eOut }),
      }),
    );
  setClock(h, end + 50);
  for (const { meter } of meters) {
    meter.recorder.tick(end + 50);
    await meter.recorder.idle();
  }
}

export function sourceOf(meters: readonly TestMeter[]): QuarterSource {
  return {
    meters: () => meters.map((m) => ({ id: m.id, role: m.role })),
    quarters: (id, after, until, limit) =>
      meters.find((m) => m.id === id)!.recorder.quarters(after, until, limit),
    minutes: (id, from, to) => meters.find((m) => m.id === id)!.recorder.query('1m', from, to),
  };
}

export function pushClient(
  h: HttpTestContext,
  meters: readonly TestMeter[],
  settings: Partial<PushTargetSettings> & Pick<PushTargetSettings, 'url' | 'kind'>,
  secrets?: { bearer_token?: string; password?: string },
  requestTimeoutMs?: number,
): PushClient {
  const client = new PushClient({
    settings: { id: 'fleet', site: 'test-site', ...settings },
    secrets,
    source: sourceOf(meters),
    directory: join(h.stateDir, 'push'),
    gateway: 'A1B2C3D4E5F6',
    clock: h.ctx.clock,
    now: h.clock.now,
    logger: h.ctx.logger,
    refusals: h.ctx.refusals,
    random: () => 0.5,
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
  client.load();
  return client;
}
