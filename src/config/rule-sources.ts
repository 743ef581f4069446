import { ConfigError } from './config-error.js';
import { getPath, LEAVES, type StateFileName } from './paths.js';
import { ruleIssues, type ConfigRule } from './rules.js';
import { isWithin, type ValidationIssue } from './validation.js';

/** Whether `tree` sets a leaf at `path`, inside it, or above it. */
function sets(tree: Record<string, unknown>, path: string): boolean {
  return [...LEAVES.keys()].some(
    (leaf) => (isWithin(leaf, path) || isWithin(path, leaf)) && getPath(tree, leaf) !== undefined,
  );
}

/**
 * The rules between keys over defaults < admin file < environment: a break is a start-up error
 * naming the key, attributed to the source that broke it (docs/architecture.md#configuration): the
 * environment when it sets the key, or when the admin's file (over the defaults) keeps every rule
 * and only the environment's values break one (a rule over two keys, one set in each, reports the
 * file's key); else the admin's file.
 */
export function startupRuleCheck(
  tree: Record<string, unknown>,
  envTree: Record<string, unknown>,
  options: { configFile?: string },
  /** Defaults < admin file, without the environment. */
  fileTree?: Record<string, unknown>,
): void {
  const issues = ruleIssues(tree).map((found) => found.issue);
  if (issues.length === 0) return;
  const fromEnv = (issue: ValidationIssue) => sets(envTree, issue.field);
  const file = options.configFile ?? 'defaults';
  if (issues.some(fromEnv)) throw new ConfigError('environment', issues.filter(fromEnv));
  if (fileTree && ruleIssues(fileTree).length === 0) throw new ConfigError('environment', issues);
  throw new ConfigError(file, issues);
}

/**
 * The state file behind a broken rule (docs/architecture.md#configuration): the one holding the
 * issue's field, else one holding any key the rule reads.
 */
export function overlayBehind(
  overlays: ReadonlyMap<StateFileName, Record<string, unknown>>,
  rule: ConfigRule,
  issue: ValidationIssue,
): StateFileName | undefined {
  const files = [...overlays];
  return (
    files.find(([, overlay]) => sets(overlay, issue.field))?.[0] ??
    files.find(([, overlay]) => rule.watches.some((path) => sets(overlay, path)))?.[0]
  );
}
