import Type, { type Static } from 'typebox';

/**
 * A text the server words in English, also named by a stable key and its arguments, so that the web
 * page shows it in its own language (docs/architecture.md#server-message-keys). The English text
 * stays in its usual field; a client that does not know the key shows that text.
 */
export const MessageArgsSchema = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
  description: "values for the key's {name} parameters",
});
export type MessageArgs = Static<typeof MessageArgsSchema>;

/** A message key: the web page's catalogue key of the text (`mqtt.reason.disabled`). */
export const messageKey = (description: string) => Type.String({ description });
