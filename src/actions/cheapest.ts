import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { QuarterPrice } from '../price-signal.js';
import { isEnabled, type ActionDefinition, type CheapestTrigger } from './definition.js';
import type { Fire } from './triggers.js';

/**
 * `cheapest` triggers (docs/architecture.md#actions): in each occurrence of a local time window
 * (`21:00-07:00` crosses midnight) the action runs at the start of each chosen quarter, or of each
 * block of chosen quarters that follow each other, and the `off` action at its end. The chosen
 * quarters are the `quarters` cheapest by import price (`inverse`: the most expensive), or with
 * `contiguous` the one block of that length with the lowest (highest) sum; `price_limit` keeps only
 * quarters at or below it (at or above it with `inverse`). Earlier quarters win ties.
 *
 * The window is chosen once every quarter of it has a market price. While some have none (tomorrow
 * not published), `failsafe_start` runs the action from that time for the requested length and logs
 * a `failsafe` event, so a heat pump or a boiler still runs when the prices never came.
 */

const QUARTER_MS = 15 * 60_000;

export interface Block {
  start: number;
  end: number;
}

/** Minutes of `HH:MM`. */
export function minutesOf(text: string): number {
  const [h, m] = text.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/** The local time `minutes` after the local midnight of the day that contains `ms`, `days` later. */
function localAt(ms: number, days: number, minutes: number): number {
  const date = new Date(ms);
  return new Date(
    date.getFullYear(),
    date.getMonth(),
    date.getDate() + days,
    Math.floor(minutes / 60),
    minutes % 60,
  ).getTime();
}

/** The occurrence of `window` that contains `now`, else the next one. */
export function windowAt(window: string, now: number): Block {
  const [from, to] = window.split('-').map(minutesOf) as [number, number];
  for (const days of [-1, 0, 1]) {
    const start = localAt(now, days, from);
    const end = localAt(now, to <= from ? days + 1 : days, to);
    if (now < end) return { start, end };
  }
  return { start: localAt(now, 2, from), end: localAt(now, to <= from ? 3 : 2, to) };
}

/** Chosen quarters of a fully priced window, as blocks of consecutive quarters. */
export function chooseBlocks(quarters: readonly QuarterPrice[], trigger: CheapestTrigger): Block[] {
  const inverse = trigger.inverse === true;
  const within = (price: number) =>
    trigger.price_limit === undefined ||
    (inverse ? price >= trigger.price_limit : price <= trigger.price_limit);
  const better = (a: number, b: number) => (inverse ? a > b : a < b);
  let chosen: QuarterPrice[] = [];
  if (trigger.contiguous === true) {
    let best: { index: number; sum: number } | undefined;
    for (let i = 0; i + trigger.quarters <= quarters.length; i += 1) {
      const block = quarters.slice(i, i + trigger.quarters);
      if (!block.every((q) => within(q.import!))) continue;
      const sum = block.reduce((total, q) => total + q.import!, 0);
      if (!best || better(sum, best.sum)) best = { index: i, sum };
    }
    if (best) chosen = quarters.slice(best.index, best.index + trigger.quarters);
  } else {
    chosen = quarters
      .map((quarter, index) => ({ quarter, index }))
      .filter(({ quarter }) => within(quarter.import!))
      .sort((a, b) =>
        a.quarter.import! === b.quarter.import!
          ? a.index - b.index
          : better(a.quarter.import!, b.quarter.import!)
            ? -1
            : 1,
      )
      .slice(0, trigger.quarters)
      .sort((a, b) => a.index - b.index)
      .map(({ quarter }) => quarter);
  }
  const blocks: Block[] = [];
  for (const quarter of chosen) {
    const last = blocks[blocks.length - 1];
    if (last && last.end === quarter.start) last.end = quarter.end;
    else blocks.push({ start: quarter.start, end: quarter.end });
  }
  return blocks;
}

const hhmm = (ms: number) => {
  const date = new Date(ms);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
};

interface Plan {
  action: ActionDefinition & { cheapest: CheapestTrigger };
  window: Block;
  /** The chosen blocks, once the window is priced. */
  blocks: Block[] | undefined;
  timers: Timer[];
  /** The `off` timers of blocks that have begun: a new plan does not cancel them. */
  offTimers: Timer[];
  /** A block whose `on` ran and whose `off` is still to come. */
  running: Block | undefined;
}

export class CheapestTriggers {
  private plans: Plan[] = [];
  private unsubscribe: (() => void) | undefined;
  private fire: Fire = () => undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
  ) {}

  apply(actions: readonly ActionDefinition[], fire: Fire): void {
    this.clear();
    this.fire = fire;
    for (const action of actions) {
      if (!isEnabled(action) || action.cheapest === undefined) continue;
      const plan: Plan = {
        action: action as Plan['action'],
        window: windowAt(action.cheapest.window, this.ctx.now()),
        blocks: undefined,
        timers: [],
        offTimers: [],
        running: undefined,
      };
      this.plans.push(plan);
      this.prepare(plan);
    }
    if (this.plans.length > 0) this.unsubscribe = this.ctx.prices.onChange(() => this.onPrices());
  }

  clear(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const plan of this.plans) {
      this.cancel(plan);
      for (const timer of plan.offTimers) this.ctx.clock.clearTimeout(timer);
    }
    this.plans = [];
  }

  /** The chosen blocks of each action's current window (the API and the page show them). */
  chosen(): Map<string, Block[] | undefined> {
    return new Map(this.plans.map((plan) => [plan.action.id, plan.blocks]));
  }

  private cancel(plan: Plan): void {
    for (const timer of plan.timers) this.ctx.clock.clearTimeout(timer);
    plan.timers = [];
  }

  private at(plan: Plan, time: number, run: () => void): void {
    plan.timers.push(this.ctx.clock.setTimeout(run, Math.max(0, time - this.ctx.now())));
  }

  private onPrices(): void {
    // A window not chosen yet may be now; a chosen one stays as it is.
    for (const plan of this.plans)
      if (plan.blocks === undefined && plan.running === undefined) this.prepare(plan);
  }

  /** Chooses the window's quarters when they are all priced, else waits (and arms the fail-safe). */
  private prepare(plan: Plan): void {
    this.cancel(plan);
    const { window, action } = plan;
    const trigger = action.cheapest;
    const quarters = this.ctx.prices.quarters(window.start, window.end);
    const expected = Math.round((window.end - window.start) / QUARTER_MS);
    const priced = quarters.length === expected && quarters.every((q) => q.import !== null && !q.estimated);
    if (priced) {
      plan.blocks = chooseBlocks(quarters, trigger);
      this.log.info(
        `action ${action.id}: cheapest ${trigger.window} chose ${plan.blocks.map((b) => `${hhmm(b.start)}-${hhmm(b.end)}`).join(', ') || 'nothing'}`,
      );
      for (const block of plan.blocks)
        if (block.end > this.ctx.now()) this.at(plan, block.start, () => this.begin(plan, block, 'cheapest'));
    } else if (trigger.failsafe_start !== undefined) {
      const start = this.failsafeStart(window, trigger.failsafe_start);
      if (start !== undefined && start >= this.ctx.now())
        this.at(plan, start, () => {
          plan.blocks = [{ start, end: start + trigger.quarters * QUARTER_MS }];
          this.log.warn(
            `action ${action.id}: failsafe: the prices of ${trigger.window} are missing at ${trigger.failsafe_start}; running ${trigger.quarters} quarters from then`,
            { event: 'failsafe', action: action.id },
          );
          this.begin(plan, plan.blocks[0]!, 'cheapest failsafe');
        });
    }
    // The next window once this one is over.
    this.at(plan, window.end, () => this.next(plan));
  }

  /** The fail-safe time inside the window (its first occurrence at or after the window's start). */
  private failsafeStart(window: Block, time: string): number | undefined {
    const minutes = minutesOf(time);
    for (const days of [0, 1]) {
      const at = localAt(window.start, days, minutes);
      if (at >= window.start && at < window.end) return at;
    }
    return undefined;
  }

  private begin(plan: Plan, block: Block, trigger: string): void {
    plan.running = block;
    this.fire(plan.action.id, `${trigger} ${hhmm(block.start)}-${hhmm(block.end)}`);
    const timer = this.ctx.clock.setTimeout(
      () => {
        plan.offTimers = plan.offTimers.filter((one) => one !== timer);
        if (plan.running === block) plan.running = undefined;
        const off = plan.action.cheapest.off;
        if (off !== undefined) this.fire(off, `${trigger} end ${hhmm(block.end)} (${plan.action.id})`);
      },
      Math.max(0, block.end - this.ctx.now()),
    );
    plan.offTimers.push(timer);
  }

  private next(plan: Plan): void {
    plan.window = windowAt(plan.action.cheapest.window, this.ctx.now());
    plan.blocks = undefined;
    this.prepare(plan);
  }
}
