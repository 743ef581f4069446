import type { ValidationIssue } from './validation-issue.js';

/**
 * Rules over several keys, or checks a format cannot make alone (docs/architecture.md#configuration):
 * the static addresses of a network interface, a broker URL required while MQTT is on. Each runs
 * on the whole effective tree, for every writer: the settings API and the dedicated routes, a
 * backup restore, the admin's file and the environment at start-up, the state files. config/
 * defines the rules about its own keys; a module that owns a kind of value registers its rules at
 * wiring time, like its formats.
 */
export interface ConfigRule {
  /** Names the rule in errors about the rule itself. */
  name: string;
  /** Leaf paths or section prefixes the rule reads: a write touching one of them runs it. */
  watches: readonly string[];
  /** Every problem of the tree (a schema-valid one), each naming its field by its full path. */
  check(tree: Record<string, unknown>): ValidationIssue[];
}

const rules: ConfigRule[] = [];

/** Registers rules; the same rule twice is a no-op. */
export function registerRules(list: readonly ConfigRule[]): void {
  for (const rule of list) {
    if (rules.includes(rule)) continue;
    if (rules.some((known) => known.name === rule.name))
      throw new Error(`config rule ${rule.name} is registered twice`);
    rules.push(rule);
  }
}

function touches(rule: ConfigRule, path: string): boolean {
  return rule.watches.some(
    (watched) => path === watched || path.startsWith(`${watched}.`) || watched.startsWith(`${path}.`),
  );
}

/** The problems the rules find in `tree`; with `changed`, only the rules that read a changed path. */
export function ruleIssues(
  tree: Record<string, unknown>,
  changed?: Iterable<string>,
): { rule: ConfigRule; issue: ValidationIssue }[] {
  const paths = changed === undefined ? undefined : [...changed];
  const found: { rule: ConfigRule; issue: ValidationIssue }[] = [];
  for (const rule of rules) {
    if (paths && !paths.some((path) => touches(rule, path))) continue;
    for (const issue of rule.check(tree)) found.push({ rule, issue });
  }
  return found;
}
