import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Timer } from '../clock.js';
import { writeFileAtomic } from '../config/atomic-file.js';
import type { AppContext } from '../context.js';
import { quarterExtras, type QuarterExtras } from '../history/quarter-extras.js';
import type { QuarterRecord } from '../history/recorder.js';
import { peakQuarterMeter } from '../peak/quarter-meter.js';
import { GRACE_MS, lastCompleteQuarter, type QuarterSource } from '../push/batches.js';
import { VERSION } from '../version.js';
import type { QueuedMessage } from './offline-queue.js';

/**
 * MQTT as a fleet path (docs/architecture.md#push): the quarter hours of every meter from the same
 * durable history as the HTTP push, each a QoS 1 message on `<topic>/quarters/<meter>` with a
 * sequence number (the quarter's number since the epoch, so a re-sent record has the same one);
 * a persisted cursor moves only when the broker confirmed a whole batch, so what a broker outage or
 * a restart held is sent after the next connect, and a retained birth record (firmware, meters with
 * roles and OBIS ids, time zone, site) goes first on every connect.
 */

const QUARTER_S = 900;
const BATCH = 96;
const CURSOR_FILE = 'mqtt-quarters.json';

export interface ConfirmingLink {
  readonly connected: boolean;
  publishConfirmed(message: QueuedMessage, timeoutMs?: number): Promise<void>;
}

export interface QuarterMqttStatus {
  cursor: number;
  published: number;
  last_error: string | null;
}

/** The base topic; an empty setting (a POST of the settings without it) is the default. */
function expand(topic: string, systemId: string): string {
  return (topic === '' ? 'meter-gateway/${sys.id}' : topic).replaceAll('${sys.id}', systemId);
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** The JSON of one quarter record. */
export function quarterPayload(
  record: QuarterRecord,
  meter: { id: string; role: string },
  extras: QuarterExtras = {},
): Record<string, unknown> {
  const { counters, point } = record;
  const payload: Record<string, unknown> = {
    seq: counters.t / QUARTER_S,
    meter: meter.id,
    role: meter.role,
    start: new Date(counters.t * 1000).toISOString(),
    end: new Date((counters.t + QUARTER_S) * 1000).toISOString(),
  };
  const kwh: Array<[string, number | null]> = [
    ['import_kwh', counters.eIn],
    ['export_kwh', counters.eOut],
    ['import_t1_kwh', counters.eInT1],
    ['import_t2_kwh', counters.eInT2],
    ['export_t1_kwh', counters.eOutT1],
    ['export_t2_kwh', counters.eOutT2],
  ];
  for (const [key, value] of kwh) if (value !== null) payload[key] = value;
  if (point?.pIn) payload.power_import_w = round((point.pIn.sum / point.pIn.n) * 1000);
  if (point?.pOut) payload.power_export_w = round((point.pOut.sum / point.pOut.n) * 1000);
  // Price and cost when the price series knows the quarter; the peak guard's quarter value for its meter.
  if (extras.priceImport !== undefined) payload.import_price_per_kwh = extras.priceImport;
  if (extras.priceExport !== undefined) payload.export_price_per_kwh = extras.priceExport;
  if (extras.cost !== undefined) payload.import_cost = extras.cost;
  if (extras.credit !== undefined) payload.export_credit = extras.credit;
  if (extras.demandW !== undefined) payload.average_demand_import_w = extras.demandW;
  return payload;
}

export class QuarterMqtt {
  private cursor: number | undefined;
  private published = 0;
  private lastError: string | null = null;
  private running: Promise<void> | undefined;
  private timer: Timer | undefined;
  private link: ConfirmingLink | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly source: QuarterSource,
  ) {}

  private get settings() {
    return this.ctx.config.config.services.push.mqtt;
  }

  private get file(): string {
    return join(this.ctx.config.config.paths.state, 'push', CURSOR_FILE);
  }

  private loadCursor(): number {
    if (this.cursor !== undefined) return this.cursor;
    try {
      const stored = JSON.parse(readFileSync(this.file, 'utf8')) as { cursor?: unknown };
      if (typeof stored.cursor === 'number' && Number.isSafeInteger(stored.cursor))
        return (this.cursor = stored.cursor);
    } catch {
      // absent or unreadable: start with the quarters of the last day
    }
    this.cursor = Math.floor((this.ctx.now() - 86_400_000) / 1000 / QUARTER_S) * QUARTER_S;
    return this.cursor;
  }

  private saveCursor(cursor: number): void {
    mkdirSync(join(this.ctx.config.config.paths.state, 'push'), { recursive: true });
    writeFileAtomic(this.file, `${JSON.stringify({ cursor })}\n`);
    this.cursor = cursor;
  }

  status(): QuarterMqttStatus {
    return { cursor: this.cursor ?? 0, published: this.published, last_error: this.lastError };
  }

  /** The link connected: birth first, then the quarters after the cursor; again after each quarter end. */
  connected(link: ConfirmingLink): Promise<void> {
    this.link = link;
    this.schedule();
    return this.run(true);
  }

  /** The link is gone (closed or replaced). */
  detach(): void {
    this.link = undefined;
    if (this.timer) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) this.ctx.clock.clearTimeout(this.timer);
    const now = this.ctx.now();
    const next = (Math.floor(now / 1000 / QUARTER_S) + 1) * QUARTER_S * 1000 + GRACE_MS;
    this.timer = this.ctx.clock.setTimeout(() => {
      this.timer = undefined;
      void this.run(false);
      this.schedule();
    }, next - now);
    this.timer.unref();
  }

  private run(birth: boolean): Promise<void> {
    if (this.running) return this.running.then(() => (birth ? this.run(true) : undefined));
    this.running = this.publishAll(birth)
      .catch((error: Error) => {
        this.lastError = error.message;
        this.ctx.logger.warn(`mqtt quarters: ${error.message}; sent again after the next connect`);
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private meterFacts(): Array<{ id: string; role: string; name?: string; obis: string[] }> {
    return this.ctx.meters.list().map((meter) => ({
      id: meter.id,
      role: meter.role,
      ...(meter.name ? { name: meter.name } : {}),
      obis: [...(meter.store.latest?.values.keys() ?? [])].sort(),
    }));
  }

  private async publishAll(birth: boolean): Promise<void> {
    const link = this.link;
    const settings = this.settings;
    if (!link || !link.connected || !settings.enable) return;
    const base = expand(settings.topic, this.ctx.system.id);
    if (birth)
      await link.publishConfirmed({
        topic: `${base}/birth`,
        payload: JSON.stringify({
          gateway: this.ctx.system.id,
          firmware: VERSION,
          site: settings.site,
          time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          meters: this.meterFacts(),
          at: new Date(this.ctx.now()).toISOString(),
        }),
        qos: 1,
        retain: true,
      });
    for (;;) {
      const cursor = this.loadCursor();
      const until = lastCompleteQuarter(this.ctx.now());
      const found: Array<{ meter: { id: string; role: string }; record: QuarterRecord }> = [];
      for (const meter of this.source.meters())
        for (const record of (await this.source.quarters(meter.id, cursor, until, BATCH)) ?? [])
          found.push({ meter, record });
      if (found.length === 0) return;
      const starts = [...new Set(found.map((f) => f.record.counters.t))]
        .sort((a, b) => a - b)
        .slice(0, BATCH);
      const last = starts[starts.length - 1]!;
      const batch = found
        .filter((f) => f.record.counters.t <= last)
        .sort((a, b) => a.record.counters.t - b.record.counters.t);
      const guarded = peakQuarterMeter(this.ctx.config.config);
      await Promise.all(
        batch.map(({ meter, record }) =>
          link.publishConfirmed({
            topic: `${base}/quarters/${meter.id}`,
            payload: JSON.stringify(
              quarterPayload(record, meter, quarterExtras(record, this.ctx.prices, meter.id === guarded)),
            ),
            qos: 1,
            retain: false,
          }),
        ),
      );
      this.published += batch.length;
      this.lastError = null;
      this.saveCursor(last);
    }
  }
}
