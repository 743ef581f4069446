import { type Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { dateTimes } from '../reading/time-format.js';
import type { ActionCounters, ActionStatusRecord } from '../contracts/actions.js';
import {
  isEnabled,
  type ActionDefinition,
  type ActionRequest,
  type ActionsDefinition,
} from './definition.js';
import { MODBUS_HOST } from './definition-validate.js';
import { runHttpRequest } from './http-request.js';
import { outgoingCounters, type OutgoingCounters } from '../outgoing.js';
import { ModbusWriter } from './modbus-write.js';
import { StatusRing } from './status-ring.js';
import { CODE, succeeded } from './status-codes.js';
import { runVariables, substitute, type VariableSource } from './variables.js';
import type { TemplateValue } from '../reading/template-variables.js';

/** How long stopping waits for runs in progress. */
const STOP_WAIT_MS = 2000;

/** Why a call was not started. */
export type CallRefusal = 'unknown' | 'disabled' | 'busy' | 'stopped';

export type CallResult =
  { ok: true; record: ActionStatusRecord; done: Promise<void> } | { ok: false; reason: CallRefusal };

/**
 * Runs actions: the requests of one action one after the other with the variables of the moment
 * the run starts; the action's code is that of the first failing request (it stops there), else
 * that of the last one (docs/architecture.md#actions). One run per action at a time. Every run is
 * logged with its outcome, kept in the status ring and counted per action.
 */
export class ActionRunner {
  readonly ring = new StatusRing();
  private readonly counters = new Map<string, ActionCounters>();
  /** Bounds hit by the actions' HTTP requests (docs/architecture.md#hostile-input). */
  readonly outgoing: OutgoingCounters = outgoingCounters();
  private readonly running = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly modbus: ModbusWriter;
  private definition: ActionsDefinition = {};
  private active = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
    private readonly onChange: () => void = () => undefined,
    /** Variables of domain modules (`peak.*`), read at each run. */
    private readonly sources: readonly VariableSource[] = [],
  ) {
    this.modbus = new ModbusWriter(log, ctx.clock);
  }

  /** The definition in force; counters of actions that are gone are dropped. */
  use(definition: ActionsDefinition, active: boolean): void {
    this.definition = definition;
    this.active = active;
    const ids = new Set((definition.actions ?? []).map((action) => action.id));
    for (const id of this.counters.keys()) if (!ids.has(id)) this.counters.delete(id);
  }

  actionOf(id: string): ActionDefinition | undefined {
    return this.definition.actions?.find((action) => action.id === id);
  }

  /** Counters by action id: own properties defined from entries, so no id can reach a prototype. */
  countersOf(): Record<string, ActionCounters> {
    return Object.fromEntries(
      (this.definition.actions ?? []).map((action) => [
        action.id,
        { ...(this.counters.get(action.id) ?? { runs: 0, ok: 0, failed: 0 }) },
      ]),
    );
  }

  /** Starts a run of `id` (API call, HA button, trigger), or says why not. */
  call(id: string, trigger: string): CallResult {
    if (!this.active) return { ok: false, reason: 'stopped' };
    const action = this.actionOf(id);
    if (!action) return { ok: false, reason: 'unknown' };
    if (!isEnabled(action)) return { ok: false, reason: 'disabled' };
    if (this.running.has(id)) return { ok: false, reason: 'busy' };
    const record = this.ring.open(id);
    this.running.add(id);
    const done = this.execute(action, record, trigger).finally(() => {
      this.running.delete(id);
      this.pending.delete(done);
      this.onChange();
    });
    this.pending.add(done);
    return { ok: true, record, done };
  }

  /**
   * Waits for the runs in progress (at most STOP_WAIT_MS: a request with a long timeout must not
   * hold up the daemon's shutdown) and closes the Modbus connections.
   */
  async stop(): Promise<void> {
    this.active = false;
    let timer: Timer | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = this.ctx.clock.setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([Promise.all(this.pending), waited]);
    this.ctx.clock.clearTimeout(timer);
    this.modbus.close();
  }

  private async execute(
    action: ActionDefinition,
    record: ActionStatusRecord,
    trigger: string,
  ): Promise<void> {
    const started = performance.now();
    const variables = runVariables(this.ctx, this.definition.const ?? {}, this.sources);
    let code: number = CODE.failed;
    try {
      for (const request of action.requests ?? []) {
        code = await this.runRequest(request, variables);
        if (!succeeded(code)) break;
      }
      if ((action.requests ?? []).length === 0) code = CODE.ok;
    } catch (error) {
      this.log.error(`action ${action.id}: ${(error as Error).message}`);
      code = CODE.failed;
    }
    record.code = code;
    record.exe_time = Math.round(performance.now() - started) / 1000;
    this.count(action.id, code);
    const outcome = succeeded(code) ? 'done' : 'failed';
    const line = `action ${action.id} (${trigger}) ${outcome}: code ${code} in ${record.exe_time} s`;
    if (succeeded(code)) this.log.info(line);
    else this.log.warn(line);
  }

  private runRequest(request: ActionRequest, variables: ReadonlyMap<string, TemplateValue>): Promise<number> {
    if (request.http) {
      const { http } = request;
      const rendered = Object.entries(http.headers ?? {}).map(
        ([name, value]) => [name, substitute(value, variables)] as const,
      );
      // RFC 9110 §5.5: a substituted value must not smuggle a line break into the request.
      if (rendered.some(([, value]) => /[\r\n\0]/.test(value))) return Promise.resolve(CODE.invalid);
      const headers: Record<string, string> = Object.fromEntries(rendered);
      return runHttpRequest(
        {
          ...http,
          url: substitute(http.url, variables),
          headers,
          ...(http.payload !== undefined ? { payload: substitute(http.payload, variables) } : {}),
        },
        this.log,
        this.outgoing,
      );
    }
    if (request.modbus) {
      const host = substitute(request.modbus.host, variables);
      if (!MODBUS_HOST.test(host)) return Promise.resolve(CODE.invalid);
      return this.modbus.write({
        ...request.modbus,
        host,
        value: substitute(request.modbus.value, variables),
      });
    }
    return Promise.resolve(CODE.invalid);
  }

  private count(id: string, code: number): void {
    const counters = this.counters.get(id) ?? { runs: 0, ok: 0, failed: 0 };
    counters.runs += 1;
    if (succeeded(code)) counters.ok += 1;
    else counters.failed += 1;
    counters.last_code = code;
    counters.last_run = dateTimes(this.ctx.now()).date_time;
    this.counters.set(id, counters);
  }
}
