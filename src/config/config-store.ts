import { readFileSync } from 'node:fs';
import { GuardedEmitter, type ListenerFailure } from '../guarded-emitter.js';
import { formatNamed } from './formats.js';
import { envNameOf, getPath, LEAVES, setPath, stateFileOf, type StateFileName } from './paths.js';
import { STATE_FILES, StateDirectory, type StateFileProblem } from './state-files.js';
import type { AppConfig } from './types.js';
import { checkTree, schemaDefaults, treeRuleIssues, type ValidationIssue } from './validation.js';

export type { ValidationIssue } from './validation.js';

/** Start-up configuration error: exit code 1 with a message naming key, value and rule. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly issues: readonly ValidationIssue[],
  ) {
    super(issues.map((issue) => `${source}: ${issueLine(issue)}`).join('\n'));
    this.name = 'ConfigError';
  }
}

function issueLine(issue: ValidationIssue): string {
  if (issue.summary !== undefined) return issue.summary;
  const value = issue.value !== undefined ? `: value was ${JSON.stringify(issue.value)}` : '';
  return `${issue.field}: ${issue.message}${value}`;
}

export interface LoadOptions {
  configFile?: string;
  /** Overrides paths.state from the file / environment (CLI --state-dir). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ConfigEvents {
  /** Leaf paths whose effective value changed through an API write. */
  change: [paths: readonly string[]];
}

/** `failed`: outputs whose change listener threw; the change is stored and applied to the others. */
export type ApplyResult =
  { ok: true; changed: string[]; failed: ListenerFailure[] } | { ok: false; issues: ValidationIssue[] };

/** An environment string parsed by the leaf's format; unparseable text stays text and fails validation. */
function parseEnvValue(format: string, text: string): unknown {
  const fromEnv = formatNamed(format)?.fromEnv;
  return fromEnv ? fromEnv(text) : text;
}

function environmentTree(env: NodeJS.ProcessEnv): { tree: Record<string, unknown>; unknown: string[] } {
  const tree: Record<string, unknown> = {};
  const byName = new Map([...LEAVES.values()].map((leaf) => [envNameOf(leaf.path), leaf]));
  const unknown: string[] = [];
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith('METER_GATEWAY_') || text === undefined) continue;
    const leaf = byName.get(name);
    if (!leaf) unknown.push(name);
    else setPath(tree, leaf.path, parseEnvValue(leaf.format, text));
  }
  return { tree, unknown };
}

function readAdminFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [
      { field: '', message: `cannot read config file: ${(error as Error).message}` },
    ]);
  }
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new Error('not a JSON object');
    return data as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(path, [
      { field: '', message: `not a valid JSON config file: ${(error as Error).message}` },
    ]);
  }
}

/** Deep merge of plain objects; arrays and scalars replace. */
function merge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (isPlainObject(value) && isPlainObject(current)) merge(current, value);
    else target[key] = structuredClone(value);
  }
  return target;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The configuration: schema defaults < admin file (--config) < state directory overlay < environment.
 * The admin's file is never rewritten (docs/architecture.md#durability); API writes go to the state files.
 */
export class ConfigStore extends GuardedEmitter<ConfigEvents> {
  private constructor(
    private effective: AppConfig,
    /** Schema defaults, from the one convict instance of the load. */
    private readonly defaults: Record<string, unknown>,
    private readonly overlays: Map<StateFileName, Record<string, unknown>>,
    private readonly pinned: Record<string, unknown>,
    readonly stateDirectory: StateDirectory,
    readonly problems: readonly StateFileProblem[],
    /** What start-up recovery did (temp files removed, an interrupted multi-file write completed). */
    readonly recovery: ReturnType<StateDirectory['recover']>,
  ) {
    super();
  }

  /** Loads and validates everything; throws ConfigError (exit 1) for admin file or environment errors. */
  static load(options: LoadOptions = {}): ConfigStore {
    const env = environmentTree(options.env ?? process.env);
    if (env.unknown.length > 0) {
      throw new ConfigError(
        'environment',
        env.unknown.map((name) => ({ field: name, message: 'unknown METER_GATEWAY_* variable' })),
      );
    }
    const defaults = schemaDefaults();
    const base: Record<string, unknown> = options.configFile ? readAdminFile(options.configFile) : {};
    const adminIssues = checkTree(base, true);
    if (adminIssues.length > 0) throw new ConfigError(options.configFile ?? 'defaults', adminIssues);
    const envIssues = checkTree(env.tree, true);
    if (envIssues.length > 0) throw new ConfigError('environment', envIssues);
    if (options.stateDir) setPath(env.tree, 'paths.state', options.stateDir);

    const stateDir = String(
      getPath(merge(structuredClone(defaults), merge(structuredClone(base), env.tree)), 'paths.state'),
    );
    const directory = new StateDirectory(stateDir);
    const recovery = directory.recover();
    const overlays = new Map<StateFileName, Record<string, unknown>>();
    const problems: StateFileProblem[] = [];
    for (const file of STATE_FILES) {
      const { data, problem } = directory.read(file);
      if (problem) problems.push(problem);
      if (!data) continue;
      const issues = checkTree(data, true);
      if (issues.length > 0) {
        problems.push(directory.moveAside(file, issues.map((i) => `${i.field}: ${i.message}`).join('; ')));
        continue;
      }
      overlays.set(file, data);
    }
    const store = new ConfigStore(
      {} as AppConfig,
      defaults,
      overlays,
      env.tree,
      directory,
      problems,
      recovery,
    );
    store.effective = store.compose(base);
    store.adminTree = base;
    const ruleIssues = treeRuleIssues(store.effective as unknown as Record<string, unknown>);
    if (ruleIssues.length > 0) throw new ConfigError(options.configFile ?? 'configuration', ruleIssues);
    return store;
  }

  private adminTree: Record<string, unknown> = {};

  private compose(base: Record<string, unknown>): AppConfig {
    const tree = merge(structuredClone(this.defaults), structuredClone(base));
    for (const file of STATE_FILES) {
      const overlay = this.overlays.get(file);
      if (overlay) merge(tree, overlay);
    }
    merge(tree, this.pinned);
    return deepFreeze(tree) as unknown as AppConfig;
  }

  /** The effective configuration (frozen; replaced, never mutated, on change). */
  get config(): AppConfig {
    return this.effective;
  }

  get(path: string): unknown {
    return getPath(this.effective, path);
  }

  /** The effective configuration with the writes applied (a copy; nothing is stored). */
  private candidate(changes: ReadonlyMap<string, unknown>): Record<string, unknown> {
    const candidate = structuredClone(this.effective) as unknown as Record<string, unknown>;
    for (const [path, value] of changes) setPath(candidate, path, value);
    return candidate;
  }

  /** What the schema says about the written leaves, without writing (the check apply makes). */
  schemaIssues(
    changes: ReadonlyMap<string, unknown>,
    candidate = this.candidate(changes),
  ): ValidationIssue[] {
    return checkTree(candidate, false).filter((issue) => changes.has(issue.field));
  }

  /**
   * Validates and applies API writes (leaf path -> value), persists the touched state files
   * atomically, then emits `change`. Nothing is written when any value is invalid.
   */
  apply(changes: ReadonlyMap<string, unknown>): ApplyResult {
    const issues: ValidationIssue[] = [];
    for (const path of changes.keys()) {
      if (!stateFileOf(path)) issues.push({ field: path, message: 'not writable through the API' });
    }
    if (issues.length > 0) return { ok: false, issues };
    const candidate = this.candidate(changes);
    const found = this.schemaIssues(changes, candidate);
    found.push(...protectionIssues(candidate, changes));
    found.push(...newRuleIssues(this.effective, candidate));
    if (found.length > 0) return { ok: false, issues: found };

    const changed = [...changes].filter(
      ([path, value]) => !isDeepStrictEqual(getPath(this.effective, path), value),
    );
    const updated = new Map<StateFileName, Record<string, unknown>>();
    for (const [path, value] of changed) {
      const file = stateFileOf(path)!;
      const overlay = updated.get(file) ?? structuredClone(this.overlays.get(file) ?? {});
      setPath(overlay, path, structuredClone(value));
      updated.set(file, overlay);
    }
    // Settings and secrets together (protection + password) are one unit on disk; memory follows
    // only once the disk has it, so a failed write leaves both as they were.
    this.stateDirectory.writeAll(updated);
    for (const [file, overlay] of updated) this.overlays.set(file, overlay);
    // An environment override wins at start-up; an API write made while running wins until restart.
    for (const [path] of changed) unsetPath(this.pinned, path);
    let failed: ListenerFailure[] = [];
    if (changed.length > 0) {
      this.effective = this.compose(this.adminTree);
      failed = this.deliver(
        'change',
        changed.map(([path]) => path),
      );
    }
    return { ok: true, changed: changed.map(([path]) => path), failed };
  }
}

/**
 * Protection on with no password would leave nothing to authenticate against: a write that would
 * end there is refused (the request is rejected, not the lock-out applied).
 */
function protectionIssues(
  candidate: Record<string, unknown>,
  changes: ReadonlyMap<string, unknown>,
): ValidationIssue[] {
  if (!changes.has('system.protection') && !changes.has('system.password')) return [];
  if (getPath(candidate, 'system.protection') !== true || getPath(candidate, 'system.password') !== '')
    return [];
  return [
    {
      field: 'system.password',
      message: 'a password is required while system.protection is on (set both in one request)',
    },
  ];
}

/** Issues of the tree rules that a write would introduce (those of the current tree are not its fault). */
function newRuleIssues(current: AppConfig, candidate: Record<string, unknown>): ValidationIssue[] {
  const before = new Set(
    treeRuleIssues(current as unknown as Record<string, unknown>).map((issue) => issue.message),
  );
  return treeRuleIssues(candidate).filter((issue) => !before.has(issue.message));
}

function unsetPath(tree: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  const parent = getPath(tree, keys.slice(0, -1).join('.'));
  if (keys.length === 1) delete tree[keys[0]!];
  else if (isPlainObject(parent)) delete parent[keys[keys.length - 1]!];
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
