import { leavesUnder } from '../../config/paths.js';
import type { ValidationIssue } from '../../config/validation.js';

/**
 * What the Wi-Fi station and Ethernet settings endpoints share: the schema defaults of their
 * section and a request body merged over a base. The values are checked where every writer's
 * are, by ConfigStore.apply (docs/architecture.md#configuration); a body is refused here only
 * for its shape (not an object, a field the object does not have).
 */

/** Schema defaults of a section (`eth`, `wifi.sta`): what POST starts from. */
export function sectionDefaults<T>(prefix: string): T {
  return Object.fromEntries(
    leavesUnder(prefix).map((leaf) => [leaf.path.slice(prefix.length + 1), leaf.default]),
  ) as T;
}

export type BodyResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Merges the body's `fields` over `base` (the current settings for PUT, the defaults for POST);
 * `readOnly` fields of GET's answer a client may send back are ignored.
 */
export function mergeBody<T extends object>(
  body: unknown,
  base: T,
  fields: readonly (keyof T & string)[],
  what: string,
  readOnly: ReadonlySet<string> = new Set(),
): BodyResult<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ field: '', message: `body must be a JSON object of ${what}` }] };
  }
  const known = new Set<string>(fields);
  const unknown = Object.keys(body).filter((key) => !known.has(key) && !readOnly.has(key));
  if (unknown.length > 0)
    return { ok: false, issues: unknown.map((field) => ({ field, message: 'unknown field' })) };
  const merged = { ...base };
  for (const field of fields) {
    if (Object.hasOwn(body, field))
      (merged as Record<string, unknown>)[field] = (body as Record<string, unknown>)[field];
  }
  return { ok: true, value: merged };
}
