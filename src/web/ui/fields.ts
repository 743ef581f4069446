/*
 * The page's pure helpers for settings fields: dotted paths into API objects and the validation
 * errors the API names fields by. No DOM here, so they are unit-tested in node.
 */

/** A field named by the API's validation error body (details.fields or details.issues). */
export interface FieldIssue {
  field: string;
  message: string;
  /** The rule's message key and arguments (docs/architecture.md#server-message-keys). */
  key?: string;
  args?: Record<string, unknown>;
}

/** The fields an API error body's details name (details.fields or details.issues). */
export function issuesOf(details: unknown): FieldIssue[] {
  if (typeof details !== 'object' || details === null) return [];
  const { fields, issues } = details as { fields?: unknown; issues?: unknown };
  const list = Array.isArray(fields) ? fields : Array.isArray(issues) ? issues : [];
  return list.flatMap((item: unknown) => {
    const { field, path, message, set, register, key, args } = (item ?? {}) as Record<string, unknown>;
    let name = typeof field === 'string' ? field : typeof path === 'string' ? path : '';
    // Modbus layout issues locate the field by register set and register.
    if (typeof register === 'number') name = `register ${register}${name ? ` ${name}` : ''}`;
    if (typeof set === 'number') name = `set ${set}${name ? `, ${name}` : ''}`;
    if (typeof message !== 'string') return [];
    const named =
      typeof key === 'string' && typeof args === 'object' && args !== null
        ? { key, args: args as Record<string, unknown> }
        : typeof key === 'string'
          ? { key }
          : {};
    return [{ field: name, message, ...named }];
  });
}

/** Value at a dotted path of a JSON object. */
export function valueAt(object: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined,
      object,
    );
}

/** Sets a value at a dotted path, creating objects on the way. */
export function setAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = object;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = (typeof next === 'object' && next !== null ? next : (node[key] = {})) as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** A form field's config path: the form's prefix (data-strip) and the field's name. */
export function configPath(strip: string, name: string): string {
  return strip + name;
}

/** The form field an API error names: its config path without the form's prefix. */
export function fieldNameOf(field: string, strip: string): string {
  return strip && field.startsWith(strip) ? field.slice(strip.length) : field;
}
