/**
 * Checks a response against the served OpenAPI 3.1 document: the status must be documented for
 * the operation and the body must satisfy the document's JSON Schema. The schemas are the ones the
 * server generated (from src/contracts/ and the config schema); TypeBox's validator checks the body
 * against them as plain JSON Schema (draft 2020-12, OpenAPI 3.1's dialect), with `$ref`s resolved
 * in the document's components. OpenAPI's `writeOnly` (a property that must not appear in a
 * response) is an annotation to a JSON Schema validator, so it is checked here on its own.
 */
import Value from 'typebox/value';

type Schema = Record<string, unknown>;
export type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Schema> }>>;
  components: { schemas: Record<string, Schema> };
};

/** The schema a `$ref` into the document's components names, else the schema itself. */
function resolved(schema: Schema, doc: Doc): Schema {
  if (typeof schema.$ref !== 'string') return schema;
  return doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] ?? schema;
}

/** Properties marked writeOnly that a response carries, by path. */
function writeOnlyProblems(schema: Schema, value: unknown, doc: Doc, at: string): string[] {
  const node = resolved(schema, doc);
  if (Array.isArray(value) && typeof node.items === 'object')
    return value.flatMap((item, i) => writeOnlyProblems(node.items as Schema, item, doc, `${at}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const parts = [...((node.allOf ?? []) as Schema[])];
  return [
    ...Object.entries(value).flatMap(([name, child]) => {
      const property = properties[name];
      if (!property) return [];
      if (property.writeOnly === true) return [`${at}.${name}: writeOnly property in a response`];
      return writeOnlyProblems(property, child, doc, `${at}.${name}`);
    }),
    ...parts.flatMap((part) => writeOnlyProblems(part, value, doc, at)),
  ];
}

/** Problems of `value` against `schema` of the document; empty when it conforms. */
export function validate(schema: Schema, value: unknown, doc: Doc, at = '$'): string[] {
  // The document's components travel with the schema, so its `$ref`s resolve against them.
  const rooted = { ...schema, components: doc.components };
  const errors = [...Value.Errors(rooted, value)].map(
    (error) => `${at}${error.instancePath.replaceAll('/', '.')}: ${error.message}`,
  );
  return [...new Set(errors), ...writeOnlyProblems(schema, value, doc, at)];
}

/** Problems of one received response against the document; empty when it conforms. */
export function responseProblems(
  doc: Doc,
  method: string,
  path: string,
  status: number,
  contentType: string,
  body: string,
): string[] {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (!operation) return [`${method} ${path} is not in the document`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${path}: status ${status} is not documented`];
  const content = response.content as Record<string, { schema: Schema }> | undefined;
  if (!content) return body === '' ? [] : [`${method} ${path} ${status}: body without documented content`];
  // A documented media type may carry parameters (text/plain; version=0.0.4); its type decides.
  const baseOf = (type: string) => type.split(';')[0]!.trim();
  const mediaType = baseOf(contentType);
  const media = Object.entries(content).find(([type]) => baseOf(type) === mediaType)?.[1];
  if (!media) return [`${method} ${path} ${status}: media type ${mediaType} not documented`];
  if (mediaType !== 'application/json') return [];
  return validate(media.schema, JSON.parse(body), doc).map(
    (problem) => `${method} ${path} ${status}: ${problem}`,
  );
}
