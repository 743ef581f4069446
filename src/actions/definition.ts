/**
 * The actions definition of the device's API (`ActionsDefinition` of its OpenAPI description):
 * constants for substitution and a list of actions, each a sequence of HTTP or Modbus requests.
 * `schedule`, `when` and `min_interval` are this gateway's own trigger fields
 * (docs/architecture.md#actions); the device's clients ignore them.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Modbus function codes of a write: 5 single coil, 6 single register, 15 coils, 16 registers. */
export const MODBUS_FUNCS = [5, 6, 15, 16] as const;
export type ModbusFunc = (typeof MODBUS_FUNCS)[number];

export const VALUE_TYPES = ['hex', 'short', 'int', 'long', 'float', 'double'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export interface HttpRequestDefinition {
  url: string;
  method?: HttpMethod;
  payload?: string;
  headers?: Record<string, string>;
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

/** Limits of a definition (docs/architecture.md#actions). */
export const LIMITS = {
  /** A POST body larger than this answers 413. */
  definitionBytes: 16 * 1024,
  actions: 32,
  requestsPerAction: 8,
  idLength: 15,
  constNameLength: 32,
  headers: 16,
  timeoutSeconds: { min: 0.1, max: 60 },
  forSeconds: 86_400,
  minIntervalSeconds: 86_400,
} as const;

export const DEFAULTS = {
  method: 'GET' as HttpMethod,
  httpTimeoutSeconds: 5,
  modbusPort: 502,
  unitId: 1,
  type: 'short' as ValueType,
  modbusTimeoutSeconds: 3,
};

/** Whether an action is enabled (the device's `enable` defaults to true when absent). */
export function isEnabled(action: ActionDefinition): boolean {
  return action.enable !== false;
}
