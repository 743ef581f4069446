import { formatNamed, type Limits } from '../config/formats.js';
import type { LeafInfo } from '../config/paths.js';
import type { JsonSchema } from './router.js';
import type { Section } from '../config/settings-write.js';
import { contract } from './contract-ref.js';

/**
 * The settings sections' JSON Schemas for GET /api/v1/openapi.json, generated from the config
 * schema (the one source of the settings' constraints). Every other shape is declared once in
 * src/contracts/ (docs/architecture.md#api-contracts).
 */

/** Reference to the error body schema in components (docs/architecture.md#errors). */
export const ERROR_REF: JsonSchema = { $ref: '#/components/schemas/Error' };

/** A config leaf as JSON Schema: its JSON type and the limits of the schema item (from its format). */
export function leafSchema(leaf: LeafInfo): JsonSchema {
  const out: JsonSchema = {
    description: leaf.doc,
    ...formatNamed(leaf.format)?.jsonSchema?.(leaf.schema as Limits),
  };
  if (leaf.secret) out.writeOnly = true;
  return out;
}

/**
 * Object schema of a settings section. 'view': what GET returns (every non-secret field
 * required, secrets absent). 'write': a request body (all optional, secrets write-only).
 */
export function sectionSchema(section: Section, kind: 'view' | 'write'): JsonSchema {
  // A view lists exactly the section's fields (a secret cannot slip in); a write body may carry
  // more (the whatwatt Go API allows additional properties; they are ignored).
  const closed = kind === 'view' ? { required: [], additionalProperties: false } : {};
  const root: JsonSchema = { type: 'object', properties: {}, ...structuredClone(closed) };
  for (const leaf of section.leaves) {
    if (kind === 'view' && leaf.secret) continue;
    const keys = (section.base === '' ? leaf.path : leaf.path.slice(section.base.length + 1)).split('.');
    let node = root;
    for (const key of keys.slice(0, -1)) {
      const properties = node.properties as Record<string, JsonSchema>;
      properties[key] ??= { type: 'object', properties: {}, ...structuredClone(closed) };
      if (kind === 'view') addRequired(node, key);
      node = properties[key];
    }
    const last = keys[keys.length - 1]!;
    (node.properties as Record<string, JsonSchema>)[last] = leafSchema(leaf);
    if (kind === 'view') addRequired(node, last);
  }
  return root;
}

/** `details.ignored` of a settings write's answer: body fields that no setting took. */
export const IGNORED_DETAILS_SCHEMA = contract('IgnoredDetailsSchema');

function addRequired(node: JsonSchema, key: string): void {
  const required = (node.required ??= []) as string[];
  if (!required.includes(key)) required.push(key);
}
