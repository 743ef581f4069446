/**
 * The Modbus RTU slave as an output (docs/architecture.md#output-contract): its slice, facts and
 * line settings are in rtu-slice.ts, the frames in rtu-slave.ts.
 */
import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter } from '../export-limiter/limiter.js';
import { type Timer } from '../clock.js';
import { existsSync } from 'node:fs';
import { Backoff, RECONNECT_CAP_MS } from '../backoff.js';
import type { AppContext } from '../context.js';
import { SerialLink } from '../serial/serial-link.js';
import { formatLine } from '../serial/line-settings.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, MeterLookup, MeterRef, OutputView } from '../output.js';
import { RegisterFeed } from './register-feed.js';
import { ReadingStore } from '../reading/store.js';
import { interFrameMs } from '../modbus-protocol/rtu-frame.js';
import { RtuSlave } from './rtu-slave.js';
import { SlaveOutput } from './slave-output.js';
import {
  feedSettings,
  lineSettings,
  portSettings,
  type ModbusRtuCounters,
  type ModbusRtuFacts,
  type RtuSettings,
  type RtuSlice,
} from './rtu-slice.js';

export type { ModbusRtuStatus } from './rtu-slice.js';

/**
 * How often the open device node is checked for presence. An unplugged USB adapter's node goes
 * away; the serial library reports that only when it next reads, and a slave may wait long for
 * a request, so the node is checked instead.
 */
const PRESENCE_CHECK_MS = 1000;

/**
 * The Modbus RTU service: a slave on an RS485 adapter (services.modbus_rtu.device) that answers
 * as the meter services.modbus_rtu.meter with services.modbus_rtu.profile, beside and independent
 * of the TCP slave. The port is opened while enabled and licensed (not FREE); the serial line
 * library is loaded only when the slave is enabled.
 *
 * Failures (docs/architecture.md#output-contract): a port that cannot be opened, or no device set,
 * rejects the apply, and the runner retries it. A port that vanishes after it opened (adapter
 * unplugged) is live trouble: the status line shows `retrying` with the cause while the slave
 * reopens the port by itself, 1 s doubling to 30 s (docs/architecture.md#data-flow), and `running`
 * again once it is back. An apply in the meantime stops that loop and opens the port itself.
 */
export class ModbusRtuService
  extends SlaveOutput<ModbusRtuCounters>
  implements DeclaredOutput<RtuSlice, ModbusRtuFacts>
{
  readonly name = 'modbus_rtu';
  readonly watches = ['services.modbus_rtu', 'modbus.layout', 'modbus.nominal_frequency'] as const;
  /** Rebuilt when the slice names another meter (or its meter restarted). */
  feed: RegisterFeed;
  /** The meter the feed was made for (its handle undefined: not running, the feed reads an empty store). */
  private boundTo: MeterRef | undefined;
  private slave: RtuSlave | undefined;
  private link: SerialLink | undefined;
  private presence: Timer | undefined;
  /** The slice applied last (the reopen after an unplug opens what it asks for). */
  private applied: OutputView<RtuSlice> | undefined;
  /** The reopen after an unplug: its backoff, its pending timer and the attempt in progress. */
  private readonly reopenBackoff = new Backoff(1000, RECONNECT_CAP_MS);
  private reopenTimer: Timer | undefined;
  private reopening: Promise<void> | undefined;

  constructor(
    ctx: AppContext,
    /** The running peak guard, for layouts with `peak.*` ids. */
    private readonly peak?: PeakGuard,
    /** The export limiter, for layouts with `limiter.*` ids. */
    private readonly limiter?: ExportLimiter,
  ) {
    super(ctx);
    this.feed = this.feedFor(undefined);
  }

  /**
   * The feed of the meter the slave emulates (docs/architecture.md#modbus-unit-map); a meter that is
   * not running serves the profile's "no data" values from a store that never gets a reading.
   */
  private feedFor(store: ReadingStore | undefined): RegisterFeed {
    return new RegisterFeed(
      this.ctx,
      'modbus_rtu',
      (space) => {
        if (this.slave) this.slave.space = space;
      },
      {
        store: store ?? new ReadingStore({ staleAfterMs: 1, meterInterface: 'RS485', clock: this.ctx.clock }),
        peak: this.peak,
        limiter: this.limiter,
      },
    );
  }

  select(config: AppConfig, meters: MeterLookup): RtuSlice {
    const rtu = config.services.modbus_rtu;
    return {
      rtu,
      meter: meters.ref(rtu.meter),
      layout: config.modbus.layout,
      nominalFrequency: config.modbus.nominal_frequency,
    };
  }

  enabled(slice: RtuSlice): boolean {
    return slice.rtu.enable;
  }

  /**
   * The register space follows every apply (profile, direction, layout, line, the meter's store);
   * the port is (re)opened when the line, the device, the unit id or the license verdict changed,
   * or when it is not open. Rejects while the slave should serve and cannot.
   */
  async apply(
    next: OutputView<RtuSlice>,
    previous: OutputView<RtuSlice> | undefined,
  ): Promise<ModbusRtuFacts> {
    // A reopen after an unplug that is under way ends first: never two opens at once.
    await this.reopening;
    this.cancelReopen();
    const { rtu, meter } = next.slice;
    this.applied = next;
    const bound = this.boundTo;
    const rebound = !bound || bound.id !== meter.id || bound.handle !== meter.handle;
    if (rebound) {
      this.feed.stop();
      this.feed = this.feedFor(meter.handle?.store);
      this.boundTo = meter;
    }
    // Another meter (or its restart) only swaps the feed the open port's slave reads: no gap on the bus.
    if (this.link) this.feed.start(feedSettings(rtu));
    else this.feed.configure(feedSettings(rtu));
    const was = previous?.slice.rtu;
    const lineChanged =
      was === undefined || previous?.blocked !== next.blocked || portSettings(was) !== portSettings(rtu);
    const wanted = rtu.enable && !next.blocked;
    if (this.link && (!wanted || lineChanged)) await this.close();
    if (wanted && rtu.device === '') throw new Error('services.modbus_rtu.device is not set');
    if (wanted && !this.link) {
      this.reopenBackoff.reset();
      await this.open(rtu);
    }
    this.status?.trouble(undefined);
    return this.facts(next.slice);
  }

  private facts(slice: RtuSlice): ModbusRtuFacts {
    const { rtu, meter } = slice;
    return {
      device: rtu.device,
      line: formatLine(lineSettings(rtu)),
      unit_id: rtu.unit_id,
      profile: this.feed.profile,
      meter: meter.id,
      meter_running: meter.handle !== undefined,
      ...this.counterFacts(),
    };
  }

  /** Exception replies of the running slave by exception code (metrics); empty while none runs. */
  get exceptionCodes(): ReadonlyMap<number, number> {
    return this.slave?.exceptionCodes ?? new Map();
  }

  /** Whether the port is open and the slave answers on it (metrics). */
  get serving(): boolean {
    return this.link !== undefined;
  }

  /** The slave's counters (tests, status). */
  get counters(): { requests: number; exceptions: number; badFrames: number; otherUnit: number } {
    const slave = this.slave;
    return {
      requests: slave?.requests ?? 0,
      exceptions: slave?.exceptions ?? 0,
      badFrames: slave?.badFrames ?? 0,
      otherUnit: slave?.otherUnit ?? 0,
    };
  }

  protected counterFacts(): ModbusRtuCounters {
    const { requests, exceptions, badFrames, otherUnit } = this.counters;
    return { requests, exceptions, bad_frames: badFrames, other_unit: otherUnit };
  }

  /** Opens the port with `rtu`'s line and starts the slave on it; rejects when it cannot be opened. */
  private async open(rtu: RtuSettings): Promise<void> {
    const { device } = rtu;
    const line = lineSettings(rtu);
    let link: SerialLink;
    try {
      link = await SerialLink.open(device, line);
    } catch (error) {
      throw new Error(`cannot open ${device}: ${(error as Error).message}`, { cause: error });
    }
    this.link = link;
    this.feed.start(feedSettings(rtu));
    const unitId = rtu.unit_id;
    const slave = new RtuSlave({
      unitId,
      space: this.feed.space,
      silenceMs: interFrameMs(line.baudRate, line.parity, line.stopBits),
      clock: this.ctx.clock,
      send: (frame) => {
        link.write(frame).catch((error: Error) => this.ctx.logger.warn(`Modbus RTU write: ${error.message}`));
      },
    });
    this.slave = slave;
    link.on('data', (chunk) => slave.receive(chunk));
    const lost = (reason: string): void => {
      if (this.link !== link) return;
      void this.close();
      this.lost(`${device} closed: ${reason}`);
    };
    link.on('close', (reason) => lost(reason?.message ?? 'port closed'));
    this.presence = this.ctx.clock.setInterval(() => {
      if (!existsSync(device)) lost('the device is gone');
    }, PRESENCE_CHECK_MS);
    this.presence.unref();
    this.ctx.logger.info(
      `Modbus RTU slave on ${device} (${formatLine(line)}, unit id ${unitId}, profile ${this.feed.profile})`,
    );
    this.startCounters();
  }

  /** The open port went away: live trouble, and the next reopen on the backoff. */
  private lost(message: string): void {
    const delay = this.reopenBackoff.next();
    this.ctx.logger.error(`Modbus RTU slave: ${message}; retrying in ${delay / 1000} s`);
    this.status?.trouble(message);
    this.reopenTimer = this.ctx.clock.setTimeout(() => {
      this.reopenTimer = undefined;
      this.reopening = this.reopen().finally(() => (this.reopening = undefined));
    }, delay);
    this.reopenTimer.unref();
  }

  /** One reopen attempt with the slice applied last; a failure waits the next, longer step. */
  private async reopen(): Promise<void> {
    const view = this.applied;
    if (!view || this.link || !view.slice.rtu.enable || view.blocked) return;
    try {
      await this.open(view.slice.rtu);
    } catch (error) {
      this.lost((error as Error).message);
      return;
    }
    this.reopenBackoff.reset();
    this.ctx.logger.info('Modbus RTU slave: port open again');
    this.status?.trouble(undefined);
  }

  private cancelReopen(): void {
    if (this.reopenTimer) this.ctx.clock.clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
  }

  override async stop(): Promise<void> {
    this.applied = undefined;
    this.cancelReopen();
    await this.reopening;
    await super.stop();
  }

  protected async close(): Promise<void> {
    if (this.presence) this.ctx.clock.clearInterval(this.presence);
    this.presence = undefined;
    this.slave?.reset();
    this.feed.stop();
    this.stopCounters();
    const link = this.link;
    this.link = undefined;
    if (link) await link.close();
  }
}

export function createModbusRtuService(
  ctx: AppContext,
  peak?: PeakGuard,
  limiter?: ExportLimiter,
): ModbusRtuService {
  return new ModbusRtuService(ctx, peak, limiter);
}
