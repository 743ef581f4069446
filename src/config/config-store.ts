import { readFileSync } from 'node:fs';
import { GuardedEmitter, type ListenerFailure } from '../guarded-emitter.js';
import { formatNamed } from './formats.js';
import { envNameOf, getPath, LEAVES, setPath, stateFileOf, type StateFileName } from './paths.js';
import { STATE_FILES, StateDirectory, type StateFileProblem } from './state-files.js';
import type { AppConfig } from './types.js';
import { ConfigError } from './config-error.js';
import { overlayBehind, startupRuleCheck } from './rule-sources.js';
import { ruleIssues } from './rules.js';
import { checkTree, isWithin, schemaDefaults, type ValidationIssue } from './validation.js';

export { ConfigError } from './config-error.js';

export type { ValidationIssue } from './validation.js';

export interface LoadOptions {
  configFile?: string;
  /** Overrides paths.state from the file / environment (CLI --state-dir). */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Called with the state directory once it is known, before anything in it is read or written
   * (the daemon takes the folder's lock here: docs/architecture.md#state-folder-lock).
   */
  beforeStateDir?: (stateDir: string) => void;
}

export interface ConfigEvents {
  /** Leaf paths whose effective value changed through an API write. */
  change: [paths: readonly string[]];
}

/**
 * A stored write. `settled` resolves once every output that watches a changed path has reconciled
 * (docs/architecture.md#output-contract), to the outputs that failed to take the change up: the
 * change is stored and applied to the others.
 */
export type ApplyResult =
  | {
      ok: true;
      changed: string[];
      settled: Promise<ListenerFailure[]>;
      /** The outputs still applying the change (docs/architecture.md#output-contract). */
      pending: () => string[];
    }
  | { ok: false; issues: ValidationIssue[] };

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
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, [
      {
        field: '',
        message: `not a valid JSON config file: ${jsonErrorText(text, (error as Error).message)}`,
      },
    ]);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ConfigError(path, [{ field: '', message: 'not a valid JSON config file: not a JSON object' }]);
  return data as Record<string, unknown>;
}

/**
 * JSON.parse's complaint with the line and column it points at (1-based, as editors count), worked
 * out from the character offset V8 reports (`at position N`; the end for an unexpected end).
 */
export function jsonErrorText(text: string, message: string): string {
  const reported = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  let where: string | undefined;
  if (reported) where = `line ${reported[1]}, column ${reported[2]}`;
  else if (position || /end of JSON input/.test(message)) {
    const offset = Math.min(position ? Number(position[1]) : text.length, text.length);
    const before = text.slice(0, offset).split('\n');
    where = `line ${before.length}, column ${before.at(-1)!.length + 1}`;
  }
  const what = message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '');
  return where ? `${where}: ${what}` : what;
}

/**
 * Deep merge of the schema's sections; a leaf's value (scalar, array, or an object such as the
 * actions definition) replaces the one below it whole. Keys are defined as own properties, so a
 * key such as `__proto__` in a file is a name like any other (the schema check reports it).
 */
function merge(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  prefix = '',
): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    if (!LEAVES.has(path) && isPlainObject(value) && isPlainObject(current)) merge(current, value, path);
    else Object.defineProperty(target, key, { value: structuredClone(value), ...OWN });
  }
  return target;
}

const OWN = { writable: true, enumerable: true, configurable: true } as const;

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
    startupRuleCheck(
      merge(merge(structuredClone(defaults), structuredClone(base)), env.tree),
      env.tree,
      options,
      merge(structuredClone(defaults), structuredClone(base)),
    );

    const stateDir = String(
      getPath(merge(structuredClone(defaults), merge(structuredClone(base), env.tree)), 'paths.state'),
    );
    options.beforeStateDir?.(stateDir);
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
    store.lockedPaths = lockedPathsOf(
      merge(merge(structuredClone(defaults), structuredClone(base)), env.tree),
    );
    store.adminTree = base;
    store.effective = store.compose(base);
    store.dropOverlaysBreakingRules(problems);
    return store;
  }

  /**
   * A state file whose values break a rule together with the rest (docs/architecture.md#configuration)
   * is moved aside like a file that breaks the schema, so start-up never blocks on it.
   */
  private dropOverlaysBreakingRules(problems: StateFileProblem[]): void {
    for (;;) {
      const found = ruleIssues(this.effective);
      if (found.length === 0) return;
      const file = overlayBehind(this.overlays, found[0]!.rule, found[0]!.issue);
      if (!file) return;
      const reason = found.map(({ issue }) => `${issue.field}: ${issue.message}`).join('; ');
      problems.push(this.stateDirectory.moveAside(file, reason));
      this.overlays.delete(file);
      this.effective = this.compose(this.adminTree);
    }
  }

  private adminTree: Record<string, unknown> = {};
  private lockedPaths: ReadonlySet<string> = new Set();

  /**
   * Setting paths the Home Assistant add-on's options set (addon.locked while addon.enable): their
   * admin-file value wins over stored settings, and API writes that change them are refused
   * (docs/architecture.md#add-on-options).
   */
  get locked(): ReadonlySet<string> {
    return this.lockedPaths;
  }

  private compose(base: Record<string, unknown>): AppConfig {
    const tree = merge(structuredClone(this.defaults), structuredClone(base));
    for (const file of STATE_FILES) {
      const overlay = this.overlays.get(file);
      if (overlay) merge(tree, overlay);
    }
    for (const path of this.lockedPaths) {
      const fixed = getPath(base, path);
      if (fixed !== undefined) setPath(tree, path, structuredClone(fixed));
    }
    merge(tree, this.pinned);
    // Every layer of the tree passed the schema's formats (checkTree) before it got here, and
    // AppConfig is inferred from that schema (types.ts): the typed view of a checked tree.
    return deepFreeze(tree) as AppConfig;
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
    const candidate: Record<string, unknown> = structuredClone(this.effective);
    for (const [path, value] of changes) setPath(candidate, path, value);
    return candidate;
  }

  /** What the schema says about the written leaves, without writing (the check apply makes). */
  schemaIssues(
    changes: ReadonlyMap<string, unknown>,
    candidate = this.candidate(changes),
  ): ValidationIssue[] {
    return checkTree(candidate, false).filter((issue) =>
      [...changes.keys()].some((path) => isWithin(issue.field, path)),
    );
  }

  /** Writes that would change a locked path: refused, naming the path (its value stays). */
  private lockedIssues(changes: ReadonlyMap<string, unknown>): ValidationIssue[] {
    return [...changes]
      .filter(([path, value]) => this.lockedPaths.has(path) && !isDeepStrictEqual(this.get(path), value))
      .map(([path]) => ({
        field: path,
        message: "set by the Home Assistant add-on's options; change it in the add-on's Configuration page",
        locked: true,
      }));
  }

  /**
   * Validates and applies API writes (leaf path -> value), persists the touched state files
   * atomically, then emits `change`. Nothing is written when any value is invalid. Validation,
   * the write and the start of every output's reconcile happen before this returns; `settled`
   * tells when the outputs are done.
   */
  apply(changes: ReadonlyMap<string, unknown>): ApplyResult {
    const issues: ValidationIssue[] = [];
    for (const path of changes.keys()) {
      if (!stateFileOf(path)) issues.push({ field: path, message: 'not writable through the API' });
    }
    issues.push(...this.lockedIssues(changes));
    if (issues.length > 0) return { ok: false, issues };
    const candidate = this.candidate(changes);
    const found = this.schemaIssues(changes, candidate);
    found.push(...protectionIssues(candidate, changes));
    if (found.length > 0) return { ok: false, issues: found };
    // The rules between keys run on a candidate whose every value has its type and limits.
    const broken = ruleIssues(candidate, changes.keys()).map((rule) => rule.issue);
    if (broken.length > 0) return { ok: false, issues: broken };

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
    let delivery = { settled: Promise.resolve<ListenerFailure[]>([]), pending: (): string[] => [] };
    if (changed.length > 0) {
      this.effective = this.compose(this.adminTree);
      delivery = this.deliverSettled(
        'change',
        changed.map(([path]) => path),
      );
    }
    return { ok: true, changed: changed.map(([path]) => path), ...delivery };
  }
}

/** The add-on's paths (addon.locked) when running as an add-on; a path that is no API setting fails the load. */
function lockedPathsOf(tree: Record<string, unknown>): Set<string> {
  if (getPath(tree, 'addon.enable') !== true) return new Set();
  const paths = String(getPath(tree, 'addon.locked') ?? '')
    .split(',')
    .filter((path) => path !== '');
  const wrong = paths.filter((path) => stateFileOf(path) === undefined);
  if (wrong.length > 0)
    throw new ConfigError(
      'addon.locked',
      wrong.map((path) => ({ field: 'addon.locked', message: 'not a setting the API writes', value: path })),
    );
  return new Set(paths);
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
