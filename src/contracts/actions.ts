import Type, { type Static } from 'typebox';
import { HTTP_METHODS, MODBUS_FUNCS, VALUE_TYPES } from './values.js';

export type { HttpMethod, ModbusFunc, ValueType } from './values.js';

/**
 * JSON shapes of the actions endpoints: the device's `ActionsDefinition` and `ActionStatus`, and the
 * gateway's overview (docs/architecture.md#actions). The definition's limits are checked by the
 * config layer's actions-definition format (the one check for the API, a restore and the admin's
 * file); the schema here describes the shape.
 */

export const HttpRequestDefinitionSchema = Type.Object({
  url: Type.String(),
  method: Type.Optional(Type.Enum(HTTP_METHODS)),
  payload: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  secret_headers: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'headers whose values are secret besides Authorization, Proxy-Authorization, Cookie and X-Api-Key; listed without a value in headers: the stored value stays',
    }),
  ),
  secret_headers_len: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description: "GET only: the length of each secret header's stored value (ignored on POST)",
    }),
  ),
  timeout: Type.Optional(Type.Number({ description: 'seconds for the whole exchange' })),
});
export type HttpRequestDefinition = Static<typeof HttpRequestDefinitionSchema>;

export const ModbusRequestDefinitionSchema = Type.Object({
  host: Type.String(),
  port: Type.Optional(Type.Integer()),
  unit_id: Type.Optional(Type.Integer()),
  func: Type.Enum(MODBUS_FUNCS),
  address: Type.Integer(),
  type: Type.Optional(Type.Enum(VALUE_TYPES)),
  value: Type.String(),
  timeout: Type.Optional(Type.Number({ description: 'seconds for connect plus answer' })),
});
export type ModbusRequestDefinition = Static<typeof ModbusRequestDefinitionSchema>;

export const ActionRequestSchema = Type.Object({
  http: Type.Optional(HttpRequestDefinitionSchema),
  modbus: Type.Optional(ModbusRequestDefinitionSchema),
});
export type ActionRequest = Static<typeof ActionRequestSchema>;

/** A condition on a live quantity held for `for` seconds. */
export const WhenConditionSchema = Type.Object({
  value: Type.String({ description: 'live key (P_Out) or template name (2_7_0) of a quantity of the table' }),
  above: Type.Optional(Type.Number()),
  below: Type.Optional(Type.Number()),
  for: Type.Optional(Type.Number()),
  meter: Type.Optional(
    Type.String({
      description: 'the meter whose quantity is watched: main (default) or an id of meters',
    }),
  ),
});
export type WhenCondition = Static<typeof WhenConditionSchema>;

/**
 * Runs the action at the start of the cheapest (or, `inverse`, most expensive) quarters of a local
 * time window by the day-ahead import price, and `off` after each block (docs/architecture.md#actions).
 */
export const CheapestTriggerSchema = Type.Object({
  quarters: Type.Integer({ minimum: 1, maximum: 96, description: 'quarter hours to choose' }),
  window: Type.String({
    description: 'local time window "HH:MM-HH:MM" on quarter hours; may cross midnight (21:00-07:00)',
  }),
  contiguous: Type.Optional(Type.Boolean({ description: 'one block of consecutive quarters' })),
  inverse: Type.Optional(Type.Boolean({ description: 'the most expensive quarters instead' })),
  price_limit: Type.Optional(
    Type.Number({ description: 'only quarters at or below this import price (at or above with inverse)' }),
  ),
  failsafe_start: Type.Optional(
    Type.String({
      description: 'HH:MM: when the window has no prices by then, run from then for the requested length',
    }),
  ),
  off: Type.Optional(Type.String({ description: 'action id run at the end of each block' })),
});
export type CheapestTrigger = Static<typeof CheapestTriggerSchema>;

export const ActionDefinitionSchema = Type.Object({
  id: Type.String(),
  enable: Type.Optional(Type.Boolean()),
  requests: Type.Optional(Type.Array(ActionRequestSchema)),
  schedule: Type.Optional(Type.String()),
  when: Type.Optional(WhenConditionSchema),
  cheapest: Type.Optional(CheapestTriggerSchema),
  min_interval: Type.Optional(
    Type.Number({
      description: 'seconds an action waits after a triggered run before a trigger may run it again',
    }),
  ),
});
export type ActionDefinition = Static<typeof ActionDefinitionSchema>;

export const ConstValueSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export type ConstValue = Static<typeof ConstValueSchema>;

export const ActionsDefinitionSchema = Type.Object({
  const: Type.Optional(Type.Record(Type.String(), ConstValueSchema)),
  actions: Type.Optional(Type.Array(ActionDefinitionSchema)),
});
export type ActionsDefinition = Static<typeof ActionsDefinitionSchema>;

export const ActionStatusRecordSchema = Type.Object({
  action_id: Type.String(),
  id: Type.Integer({ description: 'status id, counting up from 1 per daemon run' }),
  code: Type.Integer({
    description: 'HTTP status, 0 (Modbus write confirmed), -1 running, or a negative error code',
  }),
  exe_time: Type.Number({ description: 'seconds' }),
});
export type ActionStatusRecord = Static<typeof ActionStatusRecordSchema>;

export const ActionCountersSchema = Type.Object({
  runs: Type.Integer(),
  ok: Type.Integer(),
  failed: Type.Integer(),
  last_code: Type.Optional(Type.Integer()),
  last_run: Type.Optional(Type.String({ description: "ISO 8601 time of the last run's start" })),
});
export type ActionCounters = Static<typeof ActionCountersSchema>;

/** GET /api/v1/actions/status: the status records of the ids asked. */
export const ActionStatusListSchema = Type.Array(ActionStatusRecordSchema);

/** services.actions of /api/v1/system. */
export const ActionsServiceStatusSchema = Type.Object({
  state: Type.String(),
  error: Type.Optional(Type.String()),
  actions: Type.Record(Type.String(), ActionCountersSchema),
  http: Type.Optional(
    Type.Object(
      { answers_cut: Type.Integer(), timeouts: Type.Integer() },
      { description: "bounds hit by the actions' HTTP requests: answers cut at the size limit, timeouts" },
    ),
  ),
});
export type ActionsServiceStatus = Static<typeof ActionsServiceStatusSchema>;

/** GET /api/v1/actions/recent (beyond the device): the last statuses, newest first, and the counters. */
export const ActionsRecentSchema = Type.Object({
  statuses: Type.Array(ActionStatusRecordSchema),
  counters: Type.Record(Type.String(), ActionCountersSchema),
});
export type ActionsRecent = Static<typeof ActionsRecentSchema>;

/**
 * GET /api/v1/actions/definition (beyond the device, for the web page): the stored definition, or
 * null while none is set, where the device's GET /api/v1/actions answers 404.
 */
export const ActionsDefinitionViewSchema = Type.Object({
  definition: Type.Union([ActionsDefinitionSchema, Type.Null()]),
});
export type ActionsDefinitionView = Static<typeof ActionsDefinitionViewSchema>;

/** POST /api/v1/actions/call answer. */
export const ActionCallAnswerSchema = Type.Object({ status_ids: Type.Array(Type.Integer()) });
export type ActionCallAnswer = Static<typeof ActionCallAnswerSchema>;

/** POST /api/v1/actions/call?id=: the action to run. */
export const ActionCallQuerySchema = Type.Object({
  id: Type.String({ minLength: 1, description: 'the action id' }),
});
export type ActionCallQuery = Static<typeof ActionCallQuerySchema>;

/**
 * GET /api/v1/actions/status?id=1,2: the status ids, comma-separated. Optional here: the device's
 * OpenAPI lists no 400 for this path, so a missing or malformed list is a 404 (docs/architecture.md#actions).
 */
export const ActionStatusQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ description: 'comma-separated status ids' })),
});
export type ActionStatusQuery = Static<typeof ActionStatusQuerySchema>;
