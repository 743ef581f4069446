import Type, { type TSchema } from 'typebox';

/**
 * Object properties named by a list (a table of values.ts, or a group of fields of one kind): each
 * key optional, with the schema `make` gives. The inferred type keeps every key.
 */
export function optionalEach<const Key extends string, Schema extends TSchema>(
  keys: readonly Key[],
  make: () => Schema,
): { [K in Key]: ReturnType<typeof Type.Optional<Schema>> } {
  return Object.fromEntries(keys.map((key) => [key, Type.Optional(make())])) as {
    [K in Key]: ReturnType<typeof Type.Optional<Schema>>;
  };
}
