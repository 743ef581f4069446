/**
 * JSON shapes of the actions endpoints (the device's `ActionsDefinition` and `ActionStatus`, the
 * gateway's overview), shared by the server and the web page (type-only).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Modbus function codes of a write: 5 single coil, 6 single register, 15 coils, 16 registers. */
export type ModbusFunc = 5 | 6 | 15 | 16;
export type ValueType = 'hex' | 'short' | 'int' | 'long' | 'float' | 'double';

export interface HttpRequestDefinition {
  url: string;
  method?: HttpMethod;
  payload?: string;
  headers?: Record<string, string>;
  /**
   * Headers whose values are secret besides Authorization, Proxy-Authorization, Cookie and
   * X-Api-Key (docs/architecture.md#actions). Stored: the names of the secret headers, whose
   * values live with the secrets; listed without a value in `headers`: the stored value stays.
   */
  secret_headers?: string[];
  /** GET only: the length of each secret header's stored value (ignored on POST). */
  secret_headers_len?: Record<string, number>;
  /** Seconds for the whole exchange. */
  timeout?: number;
}

export interface ModbusRequestDefinition {
  host: string;
  port?: number;
  unit_id?: number;
  func: ModbusFunc;
  address: number;
  type?: ValueType;
  value: string;
  /** Seconds for connect plus answer. */
  timeout?: number;
}

export interface ActionRequest {
  http?: HttpRequestDefinition;
  modbus?: ModbusRequestDefinition;
}

/** A condition on a live quantity held for `for` seconds (docs/architecture.md#actions). */
export interface WhenCondition {
  /** Live key (`P_Out`) or template name (`2_7_0`) of a quantity of the table. */
  value: string;
  above?: number;
  below?: number;
  for?: number;
  /** The meter whose quantity is watched: `main` (default) or an id of `meters` (docs/architecture.md#several-meters). */
  meter?: string;
}

export interface ActionDefinition {
  id: string;
  enable?: boolean;
  requests?: ActionRequest[];
  schedule?: string;
  when?: WhenCondition;
  /** Seconds an action waits after a triggered run before a trigger may run it again. */
  min_interval?: number;
}

export type ConstValue = string | number | boolean | null;

export interface ActionsDefinition {
  const?: Record<string, ConstValue>;
  actions?: ActionDefinition[];
}

export interface ActionStatusRecord {
  action_id: string;
  /** Status id, counting up from 1 per daemon run. */
  id: number;
  /** HTTP status, 0 (Modbus write confirmed), -1 running, or a negative error code. */
  code: number;
  /** Seconds. */
  exe_time: number;
}

export interface ActionCounters {
  runs: number;
  ok: number;
  failed: number;
  last_code?: number;
  /** ISO 8601 time of the last run's start. */
  last_run?: string;
}

/** services.actions of /api/v1/system. */
export interface ActionsServiceStatus {
  state: string;
  error?: string;
  actions: Record<string, ActionCounters>;
  /** Bounds hit by the actions' HTTP requests: answers cut at the size limit, timeouts. */
  http?: { answers_cut: number; timeouts: number };
}

/** GET /api/v1/actions/recent (beyond the device): the last statuses, newest first, and the counters. */
export interface ActionsRecent {
  statuses: ActionStatusRecord[];
  counters: Record<string, ActionCounters>;
}

/** POST /api/v1/actions/call answer. */
export interface ActionCallAnswer {
  status_ids: number[];
}
