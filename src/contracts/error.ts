import Type, { type Static } from 'typebox';

/**
 * The error body of every refusal (docs/architecture.md#errors): a stable key, a sentence, and
 * details (for validation_failed, `fields`: one entry per field, named as the body names it).
 */
export const ErrorBodySchema = Type.Object({
  error: Type.String(),
  message: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type ErrorBody = Static<typeof ErrorBodySchema>;
