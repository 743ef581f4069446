import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter } from '../export-limiter/limiter.js';
import { type Timer } from '../clock.js';
import { existsSync } from 'node:fs';
import { RECONNECT_CAP_MS } from '../backoff.js';
import type { AppContext } from '../context.js';
import { SerialLink } from '../serial/serial-link.js';
import { formatLine, type LineSettings } from '../serial/line-settings.js';

import type { AppConfig } from '../config/types.js';
import type { Output, OutputView } from '../output.js';
import type { SlaveLine } from '../modbus-protocol/profiles/grid-values.js';
import { RegisterFeed, type FeedSettings } from './register-feed.js';
import { ReadingStore } from '../reading/store.js';
import { interFrameMs } from '../modbus-protocol/rtu-frame.js';
import { RtuSlave } from './rtu-slave.js';
import { SlaveOutput, type SlaveStatusDetail } from './slave-output.js';

/** Reopen after a failure: 1 s doubling up to 30 s (docs/architecture.md#data-flow). */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = RECONNECT_CAP_MS;
/**
 * How often the open device node is checked for presence. An unplugged USB adapter's node goes
 * away; the serial library reports that only when it next reads, and a slave may wait long for
 * a request, so the node is checked instead.
 */
const PRESENCE_CHECK_MS = 1000;

/**
 * The Modbus RTU service: a slave on an RS485 adapter (services.modbus_rtu.device) that answers
 * as the meter services.modbus_rtu.profile, beside and independent of the TCP slave. The port is
 * opened while enabled and licensed (not FREE); a port that fails to open or vanishes (adapter
 * unplugged) is retried with capped exponential backoff. The serial line library is loaded only
 * when the slave is enabled.
 */
export class ModbusRtuService extends SlaveOutput<RtuView> implements Output<RtuView> {
  readonly name = 'modbus_rtu';
  readonly watches = ['services.modbus_rtu', 'modbus.layout', 'modbus.nominal_frequency'] as const;
  /** Rebuilt when services.modbus_rtu.meter names another meter (or its meter restarted). */
  feed: RegisterFeed;
  private slave: RtuSlave | undefined;
  private link: SerialLink | undefined;
  private retryMs = FIRST_RETRY_MS;
  private retry: Timer | undefined;
  private presence: Timer | undefined;

  constructor(
    ctx: AppContext,
    /** The running peak guard, for layouts with `peak.*` ids. */
    private readonly peak?: PeakGuard,
    /** The export limiter, for layouts with `limiter.*` ids. */
    private readonly limiter?: ExportLimiter,
  ) {
    super(ctx);
    this.feed = this.feedFor(ctx.config.config.services.modbus_rtu.meter);
    // The emulated meter restarted or went: the slave follows it onto its new store.
    const follow = (meter: { id: string }) => {
      if (meter.id === this.settings().meter && this.view) this.reconcile(this.view).catch(() => undefined);
    };
    ctx.meters.subscribe('modbus_rtu', 'added', follow);
    ctx.meters.subscribe('modbus_rtu', 'removed', follow);
    this.report('stopped');
  }

  /**
   * The feed of the meter the slave emulates (docs/architecture.md#modbus-unit-map); a meter that is
   * not running serves the profile's "no data" values from a store that never gets a reading.
   */
  private feedFor(meterId: string): RegisterFeed {
    this.boundTo = { id: meterId, store: this.ctx.meters.get(meterId)?.store };
    const store =
      this.ctx.meters.get(meterId)?.store ??
      new ReadingStore({ staleAfterMs: 1, meterInterface: 'RS485', clock: this.ctx.clock });
    return new RegisterFeed(
      this.ctx,
      'modbus_rtu',
      (space) => {
        if (this.slave) this.slave.space = space;
      },
      { store, peak: this.peak, limiter: this.limiter },
    );
  }

  /** A new meter to emulate: the old feed stops, the new one starts when the port (re)opens. */
  private rebindFeed(): void {
    const id = this.settings().meter;
    const store = this.ctx.meters.get(id)?.store;
    if (id === this.boundTo.id && store === this.boundTo.store) return;
    this.feed.stop();
    this.feed = this.feedFor(id);
  }

  /** The meter id and registered store the feed was made for (no store: the meter was not running). */
  private boundTo: { id: string; store: ReadingStore | undefined } = { id: '', store: undefined };

  select(config: AppConfig): RtuView {
    return {
      rtu: config.services.modbus_rtu,
      layout: config.modbus.layout,
      nominalFrequency: config.modbus.nominal_frequency,
    };
  }

  /**
   * Any RTU setting or the layout reconfigures the register space; the license verdict and every
   * setting but profile and direction reopen the port with the new line and unit id.
   */
  reconcile(view: OutputView<RtuView>): Promise<void> {
    const before = this.view;
    this.view = view;
    const rebound = this.feed;
    this.rebindFeed();
    if (rebound !== this.feed && before) {
      this.feed.configure(this.feedSettings());
      return this.apply(true);
    }
    if (!before) {
      this.feed.configure(this.feedSettings());
      return this.apply();
    }
    const { profile, direction, ...line } = view.slice.rtu;
    const { profile: wasProfile, direction: wasDirection, ...wasLine } = before.slice.rtu;
    const reopen = before.blocked !== view.blocked || JSON.stringify(line) !== JSON.stringify(wasLine);
    if (
      reopen ||
      profile !== wasProfile ||
      direction !== wasDirection ||
      JSON.stringify(view.slice.layout) !== JSON.stringify(before.slice.layout)
    )
      this.feed.configure(this.feedSettings());
    else if (view.slice.nominalFrequency !== before.slice.nominalFrequency) this.feed.rebuild();
    return reopen ? this.apply(true) : this.settled();
  }

  /** Exception replies of the running slave by exception code (metrics); empty while none runs. */
  get exceptionCodes(): ReadonlyMap<number, number> {
    return this.slave?.exceptionCodes ?? new Map();
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

  private settings(): RtuSettings {
    return this.view?.slice.rtu ?? this.ctx.config.config.services.modbus_rtu;
  }

  private line(): SlaveLine {
    const rtu = this.settings();
    return {
      unitId: rtu.unit_id,
      baudRate: rtu.baud,
      parity: rtu.parity,
      stopBits: rtu.stop_bits === 2 ? 2 : 1,
    };
  }

  private feedSettings(): FeedSettings {
    const rtu = this.settings();
    return { profile: rtu.profile, direction: rtu.direction, line: this.line() };
  }

  /** Opens, reopens or closes the port; `reopen` for a new line or unit id. */
  protected async applySettings(reopen: boolean): Promise<void> {
    const rtu = this.settings();
    const wanted = this.started && rtu.enable && !this.view?.blocked && rtu.device !== '';
    if (this.link && wanted && !reopen) return;
    await this.closePort();
    if (reopen || !wanted) this.retryMs = FIRST_RETRY_MS;
    if (!wanted) {
      if (!this.reportIdle(rtu.enable))
        this.report('error', { error: 'services.modbus_rtu.device is not set' });
      return;
    }
    await this.open();
  }

  private lineSettings(): LineSettings {
    const line = this.line();
    return { baudRate: line.baudRate, dataBits: 8, parity: line.parity, stopBits: line.stopBits };
  }

  private async open(): Promise<void> {
    const { device } = this.settings();
    const line = this.lineSettings();
    let link: SerialLink;
    try {
      link = await SerialLink.open(device, line);
    } catch (error) {
      // The environment's, not the settings' (docs/architecture.md#output-contract): the runner
      // shows it under this output's name and retries.
      const message = `cannot open ${device}: ${(error as Error).message}`;
      this.report('error', { error: message });
      throw new Error(message, { cause: error });
    }
    if (!this.started) {
      await link.close();
      return;
    }
    this.link = link;
    this.retryMs = FIRST_RETRY_MS;
    this.feed.start(this.feedSettings());
    const unitId = this.line().unitId;
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
      this.link = undefined;
      this.stopPresenceCheck();
      this.feed.stop();
      slave.reset();
      void link.close();
      this.failed(`${device} closed: ${reason}`);
    };
    link.on('close', (reason) => lost(reason?.message ?? 'port closed'));
    this.presence = this.ctx.clock.setInterval(() => {
      if (!existsSync(device)) lost('the device is gone');
    }, PRESENCE_CHECK_MS);
    this.presence.unref();
    this.ctx.logger.info(
      `Modbus RTU slave on ${device} (${formatLine(line)}, unit id ${unitId}, profile ${this.feed.profile})`,
    );
    this.report('running');
  }

  /** Logs, reports and schedules the next attempt (1 s doubling to 30 s). */
  private failed(message: string): void {
    this.ctx.logger.error(`Modbus RTU slave: ${message}; retrying in ${this.retryMs / 1000} s`);
    this.report('error', { error: message });
    if (!this.started) return;
    this.retry = this.ctx.clock.setTimeout(() => {
      this.retry = undefined;
      // A reopen that fails again waits the next, longer step.
      this.apply().catch((error: Error) => this.failed(error.message));
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }

  private stopPresenceCheck(): void {
    if (this.presence) this.ctx.clock.clearInterval(this.presence);
    this.presence = undefined;
  }

  private async closePort(): Promise<void> {
    this.stopPresenceCheck();
    if (this.retry) this.ctx.clock.clearTimeout(this.retry);
    this.retry = undefined;
    this.slave?.reset();
    this.feed.stop();
    const link = this.link;
    this.link = undefined;
    if (link) await link.close();
  }

  /** Service line for /api/v1/system; counters read live. */
  protected report(state: string, detail: SlaveStatusDetail = {}): void {
    const counters = (): ModbusRtuService['counters'] => this.counters;
    const profile = (): string => this.feed.profile;
    const rtu = this.settings();
    this.ctx.services.set('modbus_rtu', {
      state,
      device: rtu.device,
      line: formatLine(this.lineSettings()),
      unit_id: rtu.unit_id,
      ...detail,
      get profile() {
        return profile();
      },
      get requests() {
        return counters().requests;
      },
      get exceptions() {
        return counters().exceptions;
      },
      get bad_frames() {
        return counters().badFrames;
      },
      get other_unit() {
        return counters().otherUnit;
      },
    });
  }
}

type RtuSettings = AppConfig['services']['modbus_rtu'];

/** The RTU slave's settings and the custom layout its whatwatt profile serves. */
interface RtuView {
  rtu: RtuSettings;
  layout: AppConfig['modbus']['layout'];
  /** The frequency served while the meter sends none (modbus.nominal_frequency). */
  nominalFrequency: number;
}

export function createModbusRtuService(
  ctx: AppContext,
  peak?: PeakGuard,
  limiter?: ExportLimiter,
): ModbusRtuService {
  return new ModbusRtuService(ctx, peak, limiter);
}
