import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type {
  DeclaredOutput,
  MeterLookup,
  MeterRef,
  OutputStatus,
  OutputView,
  StatusPort,
} from '../output.js';
import type { Reading } from '../reading/reading.js';
import type { ActionsServiceStatus } from '../contracts/actions.js';
import { isEnabled, type ActionsDefinition } from './definition.js';
import { withSecretHeaders } from './secret-headers.js';
import { ActionRunner, type CallResult } from './runner.js';
import { Schedules, WhenWatcher } from './triggers.js';
import { CheapestTriggers } from './cheapest.js';
import { FurtherMeterWatch } from './meter-watch.js';
import type { VariableSource } from './variables.js';

export const ACTIONS_SERVICE = 'actions';

export interface ActionsSlice {
  definition: ActionsDefinition | null;
  /** The further meters the enabled actions' `when` conditions name, sorted by id. */
  meters: MeterRef[];
}

/** The status facts of the actions (services.actions): counters by action, bounds of their HTTP. */
export type ActionsFacts = Pick<ActionsServiceStatus, 'actions' | 'http'>;
export type ActionsStatus = OutputStatus<ActionsFacts>;

/**
 * The actions as an output (docs/architecture.md#actions): it runs on `actions.definition`, needs
 * license PLUS (under FREE every call is refused and no trigger runs), starts the schedules and the
 * `when` conditions of the enabled actions, and reports its counters under services.actions
 * (`disabled` without a definition). The store is watched only while some action has a `when`;
 * got, modbus-serial and node-cron load only when an action needs them.
 */
export class ActionsOutput implements DeclaredOutput<ActionsSlice, ActionsFacts> {
  readonly name = ACTIONS_SERVICE;
  readonly watches = ['actions'] as const;
  readonly license = 'PLUS';
  readonly runner: ActionRunner;
  private readonly schedules: Schedules;
  private readonly when: WhenWatcher;
  /** `cheapest` triggers on the day-ahead prices (./cheapest.ts). */
  readonly cheapest: CheapestTriggers;
  private readonly lastTriggered = new Map<string, number>();
  private port: StatusPort<ActionsFacts> | undefined;
  private started = false;
  private subscribed = false;
  /** Variables of domain modules (`peak.*`) the runs and the `when` conditions read. */
  private readonly sources: VariableSource[] = [];
  /** Actions whose triggers are suppressed, by the owner of the lock (the peak guard's stages). */
  private readonly locks = new Map<string, ReadonlySet<string>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
  ) {
    this.runner = new ActionRunner(ctx, log, () => this.publishStatus(), this.sources);
    this.schedules = new Schedules(log);
    this.when = new WhenWatcher(ctx, this.sources);
    this.cheapest = new CheapestTriggers(ctx, log);
    this.further = new FurtherMeterWatch(
      (reading, meter, store) => this.when.onReading(reading, this.fire, this.mayFire, meter, store),
      (meter) => this.when.onStale(meter),
    );
  }

  /** `when` conditions on further meters (./meter-watch.ts). */
  private readonly further: FurtherMeterWatch;

  select(config: AppConfig, meters: MeterLookup): ActionsSlice {
    const { definition, header_secrets: secrets } = config.actions;
    const further = new Set<string>();
    for (const action of definition?.actions ?? [])
      if (isEnabled(action) && action.when?.meter !== undefined && action.when.meter !== 'main')
        further.add(action.when.meter);
    return {
      // The runner sends the secret header values the definition names (secret-headers.ts).
      definition: definition === null ? null : withSecretHeaders(definition, secrets),
      meters: [...further].sort().map((id) => meters.ref(id)),
    };
  }

  enabled(slice: ActionsSlice): boolean {
    return slice.definition !== null;
  }

  /** The counters are live facts (each run changes them), reported here and after each run. */
  async apply(view: OutputView<ActionsSlice>): Promise<void> {
    const definition = view.blocked ? null : view.slice.definition;
    const actions = definition?.actions ?? [];
    this.runner.use(definition ?? {}, definition !== null);
    this.when.apply(actions);
    this.watchStore(this.when.watching);
    this.further.watch(view.slice.meters);
    for (const id of this.lastTriggered.keys()) if (!this.runner.actionOf(id)) this.lastTriggered.delete(id);
    this.publishStatus();
    this.cheapest.apply(actions, this.fire);
    await this.schedules.apply(actions, this.fire);
  }

  /** A call from the API or a Home Assistant button: runs now, whatever min_interval says. */
  call(id: string, trigger: string): CallResult {
    const result = this.runner.call(id, trigger);
    this.publishStatus();
    return result;
  }

  async start(status: StatusPort<ActionsFacts>): Promise<void> {
    this.port = status;
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    this.watchStore(false);
    this.further.watch([]);
    this.cheapest.clear();
    await this.schedules.clear();
    await this.runner.stop();
    this.port = undefined;
  }

  /**
   * Gives the runs a domain module's variables (wiring time: the peak guard is built after the
   * actions, since it sheds through them); their names were declared before the config loaded.
   */
  addVariableSource(source: VariableSource): void {
    if (!this.sources.includes(source)) this.sources.push(source);
  }

  /**
   * Suppresses the `when` and `schedule` triggers of `ids` while `owner` holds them (an empty set
   * releases them); calls through `call` still run (docs/architecture.md#peak-guard).
   */
  lock(owner: string, ids: ReadonlySet<string>): void {
    if (ids.size === 0) this.locks.delete(owner);
    else this.locks.set(owner, ids);
  }

  private lockOwner(id: string): string | undefined {
    for (const [owner, ids] of this.locks) if (ids.has(id)) return owner;
    return undefined;
  }

  /** Whether a trigger may run the action now (its min_interval since the last triggered run is over). */
  private readonly mayFire = (id: string): boolean => {
    const minInterval = this.runner.actionOf(id)?.min_interval ?? 0;
    const last = this.lastTriggered.get(id);
    return last === undefined || this.ctx.now() - last >= minInterval * 1000;
  };

  /** A schedule or a condition asks for a run. */
  private readonly fire = (id: string, trigger: string): void => {
    const owner = this.lockOwner(id);
    if (owner !== undefined) {
      this.log.info(`action ${id} (${trigger}) suppressed: locked by ${owner}`);
      return;
    }
    if (!this.mayFire(id)) {
      this.log.info(`action ${id} (${trigger}) skipped: min_interval not over`);
      return;
    }
    const result = this.runner.call(id, trigger);
    if (result.ok) this.lastTriggered.set(id, this.ctx.now());
    else this.log.warn(`action ${id} (${trigger}) not started: ${result.reason}`);
    this.publishStatus();
  };

  private readonly onReading = (reading: Reading): void =>
    this.when.onReading(reading, this.fire, this.mayFire);

  private readonly onMeter = (): void => {
    if (this.ctx.store.latest === undefined) this.when.onStale();
  };

  private watchStore(on: boolean): void {
    if (on === this.subscribed) return;
    this.subscribed = on;
    if (on) {
      this.ctx.store.subscribe(ACTIONS_SERVICE, 'reading', this.onReading);
      this.ctx.store.subscribe(ACTIONS_SERVICE, 'meter', this.onMeter);
    } else {
      this.ctx.store.off('reading', this.onReading);
      this.ctx.store.off('meter', this.onMeter);
    }
  }

  private facts(): ActionsFacts {
    return { actions: this.runner.countersOf(), http: { ...this.runner.outgoing } };
  }

  /** The counters changed (a run, a call): live facts of the status line. */
  private publishStatus(): void {
    if (this.started) this.port?.facts(this.facts());
  }
}
