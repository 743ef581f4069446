import convict from 'convict';
import { isPlainObject } from './config-tree.js';
import { FormatError, formatNamed } from './formats.js';
import { getPath, LEAVES, type LeafInfo } from './paths.js';
import { ruleIssues } from './rules.js';
// The network rules belong to config/ itself: registered with the first import of the checker.
import './network-rules.js';
import { SCHEMA } from './schema.js';

type FormatErrorParts = NonNullable<FormatError['details']['parts']>;

import type { ValidationIssue } from './validation-issue.js';

export type { ValidationIssue } from './validation-issue.js';

/** Whether `field` is `path` or lies inside it (`actions.definition.actions[0].id` in `actions.definition`). */
export function isWithin(field: string, path: string): boolean {
  return field === path || field.startsWith(`${path}.`) || field.startsWith(`${path}[`);
}

function isLeaf(node: unknown): boolean {
  return isPlainObject(node) && 'format' in node && 'default' in node;
}

/**
 * Runs the leaf's format on a value: every problem the FormatError names, each with its field (the
 * leaf, or a field inside a structured value such as `actions.definition.actions[0].schedule`).
 */
export function leafIssues(leaf: LeafInfo, value: unknown): ValidationIssue[] {
  const issue = checkLeaf(leaf, value);
  if (!issue) return [];
  if (!issue.parts || issue.parts.length === 0) return [issue];
  return issue.parts.map((part) => {
    const field =
      part.field === '' ? leaf.path : `${leaf.path}${part.field.startsWith('[') ? '' : '.'}${part.field}`;
    return leaf.secret || !('value' in part)
      ? { field, message: part.message }
      : { field, message: part.message, value: part.value };
  });
}

/** Runs the leaf's format on a value; the FormatError it throws becomes the issue. */
export function checkLeaf(
  leaf: LeafInfo,
  value: unknown,
): (ValidationIssue & { parts?: FormatErrorParts }) | undefined {
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
    const issue: ValidationIssue & { parts?: FormatErrorParts } = {
      field: leaf.path,
      message: error.message,
    };
    if (error.details.key !== undefined) {
      issue.key = error.details.key;
      issue.args = error.details.args ?? {};
    }
    if (!leaf.secret) issue.value = 'shownValue' in error.details ? error.details.shownValue : value;
    if (error.details.summary !== undefined) issue.summary = error.details.summary;
    if (error.details.parts !== undefined) issue.parts = error.details.parts;
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
      if (strict)
        issues.push({ field: path, message: 'unknown key', key: 'rule.unknown_key', args: {}, value });
    } else if (isLeaf(child)) continue;
    else if (isPlainObject(value)) {
      issues.push(...structureIssues(value, child as Record<string, unknown>, path, strict));
    } else issues.push({ field: path, message: 'must be an object', key: 'rule.object', args: {}, value });
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
    issues.push(...leafIssues(leaf, value));
  }
  issues.push(...structureIssues(tree, SCHEMA, '', strict));
  return issues;
}

/**
 * Every problem of a whole configuration tree, as a write would find it: the schema first, then
 * (on a tree whose every value has its type and limits) the rules between keys.
 */
export function checkWhole(tree: Record<string, unknown>): ValidationIssue[] {
  const issues = checkTree(tree, false);
  return issues.length > 0 ? issues : ruleIssues(tree).map((found) => found.issue);
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
  const instance = convict<Record<string, unknown>>(SCHEMA);
  const defaults = instance.getProperties();
  const issues = [...checkTree(defaults, true), ...ruleIssues(defaults).map((found) => found.issue)];
  if (issues.length > 0) {
    throw new Error(`schema defaults break their own rules: ${issues.map((i) => i.field).join(', ')}`);
  }
  return defaults;
}
