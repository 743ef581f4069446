import Type, { type Static } from 'typebox';

/**
 * Settings objects in the device's own shapes (not the generated settings sections): secrets shown
 * as lengths.
 */

/** GET /api/v1/meter/settings: the key and a remote source's password shown as lengths. */
export const MeterSettingsViewSchema = Type.Object(
  {
    source: Type.String(),
    source_password_len: Type.Integer(),
    conv_factor: Type.Number(),
    key_len: Type.Integer(),
  },
  { additionalProperties: false },
);
export type MeterSettingsView = Static<typeof MeterSettingsViewSchema>;

/** `details` of a settings write's answer: `ignored`, the body fields that no setting took. */
export const IgnoredDetailsSchema = Type.Object({ ignored: Type.Optional(Type.Array(Type.String())) });
export type IgnoredDetails = Static<typeof IgnoredDetailsSchema>;

/** The answer of PUT /api/v1/meter/settings: the view and the ignored fields. */
export const MeterSettingsAnswerSchema = Type.Object(
  { ...MeterSettingsViewSchema.properties, details: Type.Optional(IgnoredDetailsSchema) },
  { additionalProperties: false },
);

/** GET /api/v1/mqtt/settings as the device documents it. */
export const MqttSettingsViewSchema = Type.Object({
  enable: Type.Boolean(),
  url: Type.String(),
  username: Type.String(),
  password_len: Type.Integer(),
  client_id: Type.String(),
  skip_cn_check: Type.Boolean(),
  publish: Type.Object({
    topic: Type.String(),
    template: Type.String(),
    qos: Type.Integer(),
    retain: Type.Boolean(),
  }),
  broker: Type.Object({ certificate: Type.String() }),
  client: Type.Object({
    certificate: Type.String(),
    key_len: Type.Integer(),
    key_password_len: Type.Integer(),
  }),
  key_len: Type.Integer(),
  key_password_len: Type.Integer(),
});
export type MqttSettingsView = Static<typeof MqttSettingsViewSchema>;

/**
 * 202 of a settings write whose outputs had not finished applying it by `http.apply_timeout_ms`
 * (docs/architecture.md#output-contract): the change is stored; the outputs named are still at
 * work, and their service states in /api/v1/system tell how it ended (running or error).
 */
export const ApplyingAnswerSchema = Type.Object(
  {
    state: Type.Literal('applying'),
    outputs: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
export type ApplyingAnswer = Static<typeof ApplyingAnswerSchema>;
