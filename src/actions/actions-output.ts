import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { Output } from '../output.js';
import type { Reading } from '../reading/reading.js';
import type { ActionsServiceStatus } from './actions-api.js';
import type { ActionsDefinition } from './definition.js';
import { ActionRunner, type CallResult } from './runner.js';
import { Schedules, WhenWatcher } from './triggers.js';

export const ACTIONS_SERVICE = 'actions';

export interface ActionsSlice {
  definition: ActionsDefinition | null;
}

export type ActionsOutput = Output<ActionsSlice> & {
  readonly runner: ActionRunner;
  /** A call from the API or a Home Assistant button: runs now, whatever min_interval says. */
  call(id: string, trigger: string): CallResult;
};

/**
 * The actions as an output (docs/architecture.md#actions): it runs on `actions.definition`, needs
 * license PLUS (under FREE every call is refused and no trigger runs), starts the schedules and the
 * `when` conditions of the enabled actions, and reports its counters under services.actions. The
 * store is watched only while some action has a `when`; got, modbus-serial and node-cron load
 * only when an action needs them.
 */
export function createActionsOutput(ctx: AppContext, log: Logger): ActionsOutput {
  let view: { slice: ActionsSlice; blocked?: string } | undefined;
  let started = false;
  let subscribed = false;
  const lastTriggered = new Map<string, number>();
  const publishStatus = (): void => {
    const definition = view?.slice.definition;
    const state = !started ? 'stopped' : view?.blocked ? 'disabled' : definition ? 'running' : 'idle';
    const status: ActionsServiceStatus = { state, actions: runner.countersOf() };
    if (view?.blocked) status.error = view.blocked;
    ctx.services.set(ACTIONS_SERVICE, { ...status });
  };
  const runner = new ActionRunner(ctx, log, publishStatus);
  const schedules = new Schedules(log);
  const when = new WhenWatcher(ctx);

  const mayFire = (id: string): boolean => {
    const minInterval = runner.actionOf(id)?.min_interval ?? 0;
    const last = lastTriggered.get(id);
    return last === undefined || ctx.now() - last >= minInterval * 1000;
  };
  const fire = (id: string, trigger: string): void => {
    if (!mayFire(id)) {
      log.info(`action ${id} (${trigger}) skipped: min_interval not over`);
      return;
    }
    const result = runner.call(id, trigger);
    if (result.ok) lastTriggered.set(id, ctx.now());
    else log.warn(`action ${id} (${trigger}) not started: ${result.reason}`);
    publishStatus();
  };
  const onReading = (reading: Reading): void => when.onReading(reading, fire, mayFire);
  const onMeter = (): void => {
    if (ctx.store.latest === undefined) when.onStale();
  };
  const watchStore = (on: boolean): void => {
    if (on === subscribed) return;
    subscribed = on;
    if (on) {
      ctx.store.subscribe(ACTIONS_SERVICE, 'reading', onReading);
      ctx.store.subscribe(ACTIONS_SERVICE, 'meter', onMeter);
    } else {
      ctx.store.off('reading', onReading);
      ctx.store.off('meter', onMeter);
    }
  };

  return {
    name: ACTIONS_SERVICE,
    required: false,
    watches: ['actions'],
    license: 'PLUS',
    runner,
    select: (config) => ({ definition: config.actions.definition }),
    async reconcile(next) {
      view = next;
      if (!started) return;
      const definition = next.blocked ? null : next.slice.definition;
      const actions = definition?.actions ?? [];
      runner.use(definition ?? {}, definition !== null);
      when.apply(actions);
      watchStore(when.watching);
      for (const id of lastTriggered.keys()) if (!runner.actionOf(id)) lastTriggered.delete(id);
      publishStatus();
      await schedules.apply(actions, fire);
    },
    call(id, trigger) {
      const result = runner.call(id, trigger);
      publishStatus();
      return result;
    },
    async start() {
      started = true;
      publishStatus();
    },
    async stop() {
      started = false;
      watchStore(false);
      await schedules.clear();
      await runner.stop();
      publishStatus();
    },
  };
}
