/**
 * The actions definition of the device's API (`ActionsDefinition` of its OpenAPI description):
 * constants for substitution and a list of actions, each a sequence of HTTP or Modbus requests.
 * `schedule`, `when` and `min_interval` are this gateway's own trigger fields
 * (docs/architecture.md#actions); the device's clients ignore them.
 */

import type { ActionDefinition, HttpMethod, ValueType } from '../contracts/actions.js';

export type {
  ActionDefinition,
  ActionRequest,
  ActionsDefinition,
  CheapestTrigger,
  ConstValue,
  HttpMethod,
  HttpRequestDefinition,
  ModbusFunc,
  ModbusRequestDefinition,
  ValueType,
  WhenCondition,
} from '../contracts/actions.js';

export { HTTP_METHODS, MODBUS_FUNCS, VALUE_TYPES } from '../contracts/values.js';

/** Limits of a definition (docs/architecture.md#actions). */
export const LIMITS = {
  /** A POST body larger than this answers 413 (the device: "cannot exceed 8191 bytes"). */
  definitionBytes: 8191,
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
