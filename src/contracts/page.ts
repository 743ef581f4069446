import Type, { type Static } from 'typebox';

/** The JSON the web page's forms read from the server's own tables: setting choices and limits, the Actions form. */

/** One value a setting can take and how a settings page labels it. */
export const SettingChoiceSchema = Type.Object({ value: Type.String(), label: Type.String() });
export type SettingChoice = Static<typeof SettingChoiceSchema>;

/**
 * GET /api/v1/settings/choices: for every setting whose value is one of a fixed list, by its dotted
 * config path (as the settings endpoints name fields), the values in the schema's order.
 */
export const SettingsChoicesSchema = Type.Record(Type.String(), Type.Array(SettingChoiceSchema));
export type SettingsChoices = Static<typeof SettingsChoicesSchema>;

/** A setting's limits from the schema, as a form applies them to its control. */
export const SettingLimitsSchema = Type.Object({
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  step: Type.Optional(Type.Number()),
  minLength: Type.Optional(Type.Integer()),
  maxLength: Type.Optional(Type.Integer()),
  pattern: Type.Optional(
    Type.String({ description: "the schema's pattern (RegExp source), for the control's pattern attribute" }),
  ),
});
export type SettingLimits = Static<typeof SettingLimitsSchema>;

/** GET /api/v1/settings/limits: the limits of every setting by its dotted config path. */
export const SettingsLimitsSchema = Type.Record(Type.String(), SettingLimitsSchema);
export type SettingsLimits = Static<typeof SettingsLimitsSchema>;

/** A quantity of the quantity table as the Actions form offers it. */
export const QuantityChoiceSchema = Type.Object({
  name: Type.String({
    description: 'MQTT template variable (2_7_0), usable as ${2_7_0} and as a when.value',
  }),
  live: Type.Optional(Type.String({ description: 'live key (P_Out), when the live stream carries it' })),
  label: Type.String(),
  unit: Type.String(),
});
export type QuantityChoice = Static<typeof QuantityChoiceSchema>;

/** A status code of an action run (the server's code table) and whether it counts as success. */
export const StatusCodeChoiceSchema = Type.Object({
  code: Type.Integer(),
  name: Type.String(),
  ok: Type.Boolean(),
});
export type StatusCodeChoice = Static<typeof StatusCodeChoiceSchema>;

/**
 * GET /api/v1/actions/choices: what the Actions form offers and checks, from the server's own
 * tables: the quantities, the definition's limits and enumerations, and the status code table.
 */
export const ActionsChoicesSchema = Type.Object({
  quantities: Type.Array(QuantityChoiceSchema),
  limits: Type.Object({
    actions: Type.Integer(),
    requestsPerAction: Type.Integer(),
    idLength: Type.Integer(),
    constNameLength: Type.Integer(),
    headers: Type.Integer(),
    timeoutSeconds: Type.Object({ min: Type.Number(), max: Type.Number() }),
    forSeconds: Type.Number(),
    minIntervalSeconds: Type.Number(),
  }),
  http_methods: Type.Array(Type.String()),
  modbus_funcs: Type.Array(Type.Integer()),
  value_types: Type.Array(Type.String()),
  defaults: Type.Object({
    method: Type.String(),
    modbusPort: Type.Integer(),
    unitId: Type.Integer(),
    type: Type.String(),
  }),
  status_codes: Type.Array(StatusCodeChoiceSchema, {
    description: 'named codes; other codes: an HTTP status (http_ok range: success) or a Modbus exception',
  }),
  http_ok: Type.Tuple([Type.Integer(), Type.Integer()]),
});
export type ActionsChoices = Static<typeof ActionsChoicesSchema>;
