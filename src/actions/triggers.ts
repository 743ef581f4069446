import type { ScheduledTask } from 'node-cron';
import type { AppContext } from '../context.js';
import { nodeCron } from '../config/cron.js';
import type { Logger } from '../log.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import { isEnabled, type ActionDefinition, type WhenCondition } from './definition.js';
import { quantityOf } from './definition-validate.js';
import { sourceNumber, type VariableSource } from './variables.js';

/** What a trigger asks for: a run of the action, named for the log. */
export type Fire = (actionId: string, trigger: string) => void;

/**
 * `schedule` triggers: one node-cron task per enabled action with a schedule, in the process's time
 * zone (docs/architecture.md#time-zones), a run still in progress not started twice. node-cron loads
 * only when some action has a schedule.
 */
export class Schedules {
  private tasks: ScheduledTask[] = [];

  constructor(private readonly log: Logger) {}

  async apply(actions: readonly ActionDefinition[], fire: Fire): Promise<void> {
    await this.clear();
    const scheduled = actions.filter((action) => isEnabled(action) && action.schedule !== undefined);
    if (scheduled.length === 0) return;
    const cron = nodeCron();
    for (const action of scheduled) {
      if (!cron.validate(action.schedule!)) {
        this.log.error(
          `action ${action.id}: schedule ${JSON.stringify(action.schedule)} rejected by node-cron`,
        );
        continue;
      }
      const task = cron.schedule(action.schedule!, () => fire(action.id, 'schedule'), {
        name: `action ${action.id}`,
        noOverlap: true,
        suppressMissedWarning: true,
      });
      this.tasks.push(task);
    }
  }

  async clear(): Promise<void> {
    const tasks = this.tasks;
    this.tasks = [];
    await Promise.all(tasks.map((task) => task.destroy()));
  }
}

interface WhenState {
  action: ActionDefinition & { when: WhenCondition };
  obis: string;
  /** The meter watched (docs/architecture.md#several-meters). */
  meter: string;
  /** When the condition became true without interruption (ms), or undefined. */
  holdSince: number | undefined;
  /** False after a fire until the condition is false again: one fire per crossing. */
  armed: boolean;
  /** A value from a variable source (`peak.*`) instead of the reading's `obis`. */
  read?: () => number | undefined;
}

/**
 * `when` triggers (docs/architecture.md#actions): a quantity above (or below) a threshold without
 * interruption for `for` seconds fires the action once; it fires again only after the condition
 * was false in between. Never true on stale data: a meter status other than OK, or a reading
 * without the quantity, breaks the hold.
 */
export class WhenWatcher {
  private states: WhenState[] = [];
  /** When the last reading came (ms), to see a stale gap even when no stale event came in between. */
  private readonly lastReadingAt = new Map<string, number>();

  constructor(
    private readonly ctx: AppContext,
    /** The variable sources of the actions output (`peak.*`), read when a condition is checked. */
    private readonly sources: readonly VariableSource[] = [],
  ) {}

  apply(actions: readonly ActionDefinition[]): void {
    this.states = actions.flatMap((action) => {
      if (!isEnabled(action) || action.when === undefined) return [];
      const quantity = quantityOf(action.when.value);
      const read = quantity ? undefined : sourceNumber(this.sources, action.when.value);
      if (!quantity && !read) return [];
      const state: WhenState = {
        action: action as WhenState['action'],
        obis: quantity?.obis ?? '',
        ...(read ? { read } : {}),
        meter: action.when.meter ?? 'main',
        holdSince: undefined,
        armed: true,
      };
      return [state];
    });
  }

  get watching(): boolean {
    return this.states.length > 0;
  }

  /** The meters the conditions watch. */
  get meters(): Set<string> {
    return new Set(this.states.map((state) => state.meter));
  }

  /** A fresh reading of `meter` from its `store`: each of its conditions is held, broken or due. */
  onReading(
    reading: Reading,
    fire: Fire,
    mayFire: (actionId: string) => boolean,
    meter = 'main',
    store: ReadingStore = this.ctx.store,
  ): void {
    const fresh = store.meter.status === 'OK';
    const now = this.ctx.now();
    // A gap longer than meter.timeout was stale data (docs/architecture.md#staleness): holds break.
    const staleAfterMs = this.ctx.config.config.meter.timeout * 1000;
    const last = this.lastReadingAt.get(meter);
    if (last !== undefined && now - last > staleAfterMs) this.onStale(meter);
    this.lastReadingAt.set(meter, now);
    for (const state of this.states) {
      if (state.meter !== meter) continue;
      const value = !fresh ? undefined : state.read ? state.read() : reading.values.get(state.obis)?.value;
      if (value === undefined || !Number.isFinite(value)) {
        // Unknown is not a crossing: the hold breaks, a fired condition stays fired.
        state.holdSince = undefined;
        continue;
      }
      if (!holds(state.action.when, value)) {
        state.holdSince = undefined;
        state.armed = true;
        continue;
      }
      state.holdSince ??= now;
      if (!state.armed || now - state.holdSince < (state.action.when.for ?? 0) * 1000) continue;
      if (!mayFire(state.action.id)) continue;
      state.armed = false;
      fire(state.action.id, `when ${state.action.when.value} ${describe(state.action.when)}`);
    }
  }

  /** The meter went stale (or changed status): every hold on it is broken. */
  onStale(meter = 'main'): void {
    for (const state of this.states) if (state.meter === meter) state.holdSince = undefined;
  }
}

function holds(when: WhenCondition, value: number): boolean {
  return when.above !== undefined ? value > when.above : value < when.below!;
}

function describe(when: WhenCondition): string {
  const threshold = when.above !== undefined ? `above ${when.above}` : `below ${when.below}`;
  return `${threshold} for ${when.for ?? 0} s`;
}
