/**
 * JSON shapes of the actions endpoints (the device's `ActionStatus`, the gateway's overview), shared
 * by the server and the web page (type-only).
 */

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
}

/** POST /api/v1/actions/call answer. */
export interface ActionCallAnswer {
  status_ids: number[];
}
