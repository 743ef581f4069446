import convict from 'convict';
import { FormatError, formatNamed } from './formats.js';
import { getPath, LEAVES, type LeafInfo } from './paths.js';
import { SCHEMA } from './schema.js';

/** One violated rule: the key, the rule, and the value (omitted for secrets). */
export interface ValidationIssue {
  field: string;
  message: string;
  value?: unknown;
  /** The format owner's own wording of the whole problem, used by start-up errors. */
  summary?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLeaf(node: unknown): boolean {
  return isPlainObject(node) && 'format' in node && 'default' in node;
}

/** Runs the leaf's format on a value; the FormatError it throws becomes the issue. */
export function checkLeaf(leaf: LeafInfo, value: unknown): ValidationIssue | undefined {
  if (value === null && leaf.schema.nullable === true) return undefined;
  const format = formatNamed(leaf.format);
  if (!format) {
    throw new Error(`${leaf.path}: config format ${leaf.format} is not registered before the config load`);
  }
  try {
    format.validate(value, leaf.schema);
    return undefined;
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    const issue: ValidationIssue = { field: leaf.path, message: error.message };
    if (!leaf.secret) issue.value = 'shownValue' in error.details ? error.details.shownValue : value;
    if (error.details.summary !== undefined) issue.summary = error.details.summary;
    return issue;
  }
}

/** Keys of the tree the schema does not declare, and sections given something other than an object. */
function structureIssues(
  node: Record<string, unknown>,
  schema: Record<string, unknown>,
  prefix: string,
  strict: boolean,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(node)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const child = schema[key];
    if (!Object.hasOwn(schema, key)) {
      if (strict) issues.push({ field: path, message: 'unknown key', value });
    } else if (isLeaf(child)) continue;
    else if (isPlainObject(value)) {
      issues.push(...structureIssues(value, child as Record<string, unknown>, path, strict));
    } else issues.push({ field: path, message: 'must be an object', value });
  }
  return issues;
}

/**
 * Checks a (partial) configuration tree against the schema: every leaf the tree sets by its
 * format, then the tree's shape; `strict` also reports keys the schema does not declare (admin
 * file, environment, state files). Leaves the tree leaves out are not checked: their defaults are
 * (schemaDefaults).
 */
export function checkTree(tree: Record<string, unknown>, strict: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const leaf of LEAVES.values()) {
    const value = getPath(tree, leaf.path);
    if (value === undefined) continue;
    const issue = checkLeaf(leaf, value);
    if (issue) issues.push(issue);
  }
  issues.push(...structureIssues(tree, SCHEMA as unknown as Record<string, unknown>, '', strict));
  return issues;
}

/**
 * The defaults of every key, from the one convict instance of a load (convict normalises the
 * schema and refuses a format nobody registered). The defaults must pass their own formats.
 */
export function schemaDefaults(): Record<string, unknown> {
  const missing = new Set(
    [...LEAVES.values()].map((leaf) => leaf.format).filter((name) => !formatNamed(name)),
  );
  if (missing.size > 0) {
    throw new Error(`config formats not registered before the config load: ${[...missing].join(', ')}`);
  }
  const instance = convict<Record<string, unknown>>(
    SCHEMA as unknown as convict.Schema<Record<string, unknown>>,
  );
  const defaults = instance.getProperties();
  const issues = checkTree(defaults, true);
  if (issues.length > 0) {
    throw new Error(`schema defaults break their own rules: ${issues.map((i) => i.field).join(', ')}`);
  }
  return defaults;
}

/** A rule over several keys of the whole effective tree (a format sees one value only). */
export type TreeRule = (tree: Readonly<Record<string, unknown>>) => ValidationIssue[];

const treeRules = new Map<string, TreeRule>();

/** Registers a rule over the effective configuration; the same name twice replaces it. */
export function registerTreeRule(name: string, rule: TreeRule): void {
  treeRules.set(name, rule);
}

/** What the registered tree rules find in an effective (complete) configuration tree. */
export function treeRuleIssues(tree: Readonly<Record<string, unknown>>): ValidationIssue[] {
  return [...treeRules.values()].flatMap((rule) => rule(tree));
}
