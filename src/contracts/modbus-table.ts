import Type, { type Static } from 'typebox';
import { MessageArgsSchema, messageKey } from './message.js';

/** GET /api/v1/modbus/table: the layout the slave serves, as rows a person reads. */

export const RegisterRowViewSchema = Type.Object({
  address: Type.Integer({ description: '0-based input register address of the first word' }),
  id: Type.String(),
  name: Type.String(),
  name_key: Type.Optional(messageKey("the name's message key (the page's own wording of it)")),
  name_args: Type.Optional(MessageArgsSchema),
  unit: Type.String({ description: "unit of the value before the scaler; '' where there is none" }),
  type: Type.String({
    description: "double, float, long, int, short; 'bytes' for byte arrays, 'padding' for fill words",
  }),
  scaler: Type.Integer({ description: 'the value is served multiplied by 10^scaler' }),
  words: Type.Integer(),
});
export type RegisterRowView = Static<typeof RegisterRowViewSchema>;

export const RegisterSetViewSchema = Type.Object({
  start_address: Type.Integer(),
  word_order: Type.Enum(['msw', 'lsw']),
  rows: Type.Array(RegisterRowViewSchema),
});
export type RegisterSetView = Static<typeof RegisterSetViewSchema>;

export const ModbusTableViewSchema = Type.Object({
  source: Type.Enum(['custom', 'default'], {
    description: "whether a custom layout is set ('custom') or the default one is served",
  }),
  sets: Type.Array(RegisterSetViewSchema),
});
export type ModbusTableView = Static<typeof ModbusTableViewSchema>;
