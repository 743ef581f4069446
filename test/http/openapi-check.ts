/**
 * Checks a response against an OpenAPI 3.1 document: the status must be documented for the
 * operation and the body must satisfy its JSON Schema. The validator covers the JSON Schema
 * keywords the document uses (type, properties, required, additionalProperties, items, enum,
 * minimum, maximum, maxLength, multipleOf, pattern, $ref to components) and OpenAPI's writeOnly
 * (a writeOnly property must not appear in a response).
 */
type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Schema> }>>;
  components: { schemas: Record<string, Schema> };
};

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

function checkObject(
  schema: Schema,
  value: Record<string, unknown>,
  doc: Doc,
  at: string,
  errors: string[],
): void {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required ?? []) as string[])
    if (!(name in value)) errors.push(`${at}.${name}: required`);
  for (const [name, child] of Object.entries(value)) {
    const property = properties[name];
    if (property) {
      if (property.writeOnly === true) errors.push(`${at}.${name}: writeOnly property in a response`);
      validate(property, child, doc, `${at}.${name}`, errors);
    } else if (schema.additionalProperties === false) errors.push(`${at}.${name}: not allowed`);
    else if (typeof schema.additionalProperties === 'object')
      validate(schema.additionalProperties as Schema, child, doc, `${at}.${name}`, errors);
  }
}

export function validate(
  schema: Schema,
  value: unknown,
  doc: Doc,
  at = '$',
  errors: string[] = [],
): string[] {
  if (typeof schema.$ref === 'string') {
    return validate(
      doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!,
      value,
      doc,
      at,
      errors,
    );
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => typeMatches(type, value))) {
      errors.push(`${at}: expected ${types.join('|')}, got ${JSON.stringify(value)}`);
      return errors;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: above maximum`);
    if (
      typeof schema.multipleOf === 'number' &&
      Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9
    ) {
      errors.push(`${at}: not a multiple of ${schema.multipleOf}`);
    }
  }
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength)
      errors.push(`${at}: longer than maxLength`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      errors.push(`${at}: does not match pattern`);
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => validate(schema.items as Schema, item, doc, `${at}[${i}]`, errors));
  if (typeMatches('object', value)) checkObject(schema, value as Record<string, unknown>, doc, at, errors);
  return errors;
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
  const mediaType = contentType.split(';')[0]!.trim();
  const media = content[mediaType];
  if (!media) return [`${method} ${path} ${status}: media type ${mediaType} not documented`];
  if (mediaType !== 'application/json') return [];
  return validate(media.schema, JSON.parse(body), doc).map(
    (problem) => `${method} ${path} ${status}: ${problem}`,
  );
}
