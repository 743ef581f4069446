import Type, { type Static } from 'typebox';
import { MessageArgsSchema, messageKey } from './message.js';

/**
 * The error body of every refusal (docs/architecture.md#errors): a stable key, a sentence, and
 * details (for validation_failed, `fields`: one entry per field, named as the body names it, with
 * the rule's `key` and `args` where it has them); `key` and `args` name the message for a translation.
 */
export const ErrorBodySchema = Type.Object({
  error: Type.String(),
  message: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  key: Type.Optional(messageKey("the message's key, for a client that words it in its own language")),
  args: Type.Optional(MessageArgsSchema),
});
export type ErrorBody = Static<typeof ErrorBodySchema>;
