import type { ApplyResult, ConfigStore } from './config-store.js';
import { getPath, leavesUnder, setPath, type LeafInfo } from './paths.js';
import { checkLeaf, type ValidationIssue } from './validation.js';

/**
 * Planning a settings write: the bridge between a settings body of the API and leaf writes of the
 * config store, so every write goes through the one validation path (ConfigStore.apply). `base` is
 * the config section the body is rooted at: '' for /api/v1/settings (body keys are config paths),
 * 'meter' for /api/v1/meter/settings (body `source` is config `meter.source`).
 */
export interface Section {
  base: string;
  leaves: readonly LeafInfo[];
}

export function sectionOf(base: string, prefixes: readonly string[]): Section {
  return { base, leaves: prefixes.flatMap((prefix) => leavesUnder(prefix)) };
}

function bodyPathOf(section: Section, leaf: LeafInfo): string {
  return section.base === '' ? leaf.path : leaf.path.slice(section.base.length + 1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The current values of the section as the API shows them; secrets never appear. */
export function sectionView(section: Section, config: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const leaf of section.leaves) {
    if (!leaf.secret) setPath(view, bodyPathOf(section, leaf), getPath(config, leaf.path));
  }
  return view;
}

/** Body objects on the way to a leaf must be JSON objects; the first one that is not, or undefined. */
function blockedAt(body: Record<string, unknown>, bodyPath: string): string | undefined {
  const keys = bodyPath.split('.');
  let node: unknown = body;
  for (let i = 0; i < keys.length - 1; i++) {
    node = (node as Record<string, unknown>)[keys[i]!];
    if (node === undefined) return undefined;
    if (!isObject(node)) return keys.slice(0, i + 1).join('.');
  }
  return undefined;
}

export type WriteMode = 'merge' | 'replace';

/**
 * Leaf writes of a request body. 'merge' (PUT): only the leaves the body contains. 'replace'
 * (POST): every leaf; leaves the body leaves out return to their schema default, except write-only
 * secrets, which keep their value unless the body sets them (a client that read the settings never
 * saw the secret and cannot send it back); `omittedValue` says what an omitted leaf becomes.
 * Unknown properties are not written (spec: "The object allows additional properties"); see
 * ignoredKeys for reporting them.
 */
export function leafWrites(
  section: Section,
  body: unknown,
  mode: WriteMode,
  omittedValue: (leaf: LeafInfo) => unknown = (leaf) => leaf.default,
): { changes: Map<string, unknown>; issues: ValidationIssue[] } {
  const changes = new Map<string, unknown>();
  const issues: ValidationIssue[] = [];
  if (!isObject(body)) {
    return { changes, issues: [{ field: section.base, message: 'must be a JSON object' }] };
  }
  const blocked = new Set<string>();
  for (const leaf of section.leaves) {
    const bodyPath = bodyPathOf(section, leaf);
    const blocker = blockedAt(body, bodyPath);
    if (blocker !== undefined) {
      const field = section.base === '' ? blocker : `${section.base}.${blocker}`;
      if (!blocked.has(field)) {
        const issue: ValidationIssue = { field, message: 'must be an object' };
        // A secret below the blocked object: the value may hold it, so it is not echoed.
        if (!section.leaves.some((other) => other.secret && other.path.startsWith(`${field}.`))) {
          issue.value = getPath(body, blocker);
        }
        issues.push(issue);
        blocked.add(field);
      }
      continue;
    }
    const value = getPath(body, bodyPath);
    if (value !== undefined) changes.set(leaf.path, value);
    else if (mode === 'replace' && !leaf.secret) changes.set(leaf.path, structuredClone(omittedValue(leaf)));
  }
  return { changes, issues };
}

/**
 * Dotted paths of the body's properties that no field of the write takes, so a write never drops
 * them silently: the spec lets the objects carry additional properties (a client may send a newer
 * firmware's fields), so they are reported in the answer's `details.ignored`, not refused.
 * `known`: the writable field paths; `readOnly`: response-only fields a client may send back.
 */
export function ignoredKeys(
  body: unknown,
  known: ReadonlySet<string>,
  readOnly: ReadonlySet<string> = new Set(),
  prefix = '',
): string[] {
  if (!isObject(body)) return [];
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (known.has(path) || readOnly.has(path)) continue;
    const isSection = [...known].some((field) => field.startsWith(`${path}.`));
    if (isSection && isObject(value)) ignored.push(...ignoredKeys(value, known, readOnly, path));
    else if (!isSection) ignored.push(path);
  }
  return ignored;
}

/** The body paths of a section's leaves (the keys a write of it takes). */
export function bodyPaths(section: Section): Set<string> {
  return new Set(section.leaves.map((leaf) => bodyPathOf(section, leaf)));
}

/**
 * What POST (replace) makes of a leaf the body leaves out, as the device does: a boolean becomes
 * false and a text "" where "" is a valid value; a choice among names (services.modbus.profile) and
 * a number have no empty value and return to their default.
 */
export function emptiedOnReplace(leaf: LeafInfo): unknown {
  if (typeof leaf.default === 'boolean') return false;
  if (typeof leaf.default === 'string' && checkLeaf(leaf, '') === undefined) return '';
  return leaf.default;
}

/**
 * Writes the planned leaf changes through the store (validated, persisted, `change` emitted).
 * Structural issues found while planning and the schema's issues about the changes are reported
 * together, and nothing is written when there is any.
 */
export function writeSection(
  store: ConfigStore,
  changes: ReadonlyMap<string, unknown>,
  issues: readonly ValidationIssue[],
): ApplyResult {
  if (issues.length > 0) {
    const found = store.schemaIssues(changes);
    const reported = new Set(found.map((issue) => issue.field));
    return { ok: false, issues: [...found, ...issues.filter((issue) => !reported.has(issue.field))] };
  }
  if (changes.size === 0) return { ok: true, changed: [], settled: Promise.resolve([]), pending: () => [] };
  return store.apply(changes);
}
