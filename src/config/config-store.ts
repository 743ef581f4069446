/**
 * The configuration store: loads the layers (schema defaults, admin file, state files, environment),
 * serves the effective tree and applies API writes (docs/architecture.md#configuration).
 */
import { GuardedEmitter, type ListenerFailure } from '../guarded-emitter.js';
import { environmentTree, readAdminFile } from './config-sources.js';
import { deepFreeze, isDeepStrictEqual, merge, unsetPath } from './config-tree.js';
import { getPath, setPath, stateFileOf, type StateFileName } from './paths.js';
import { STATE_FILES, StateDirectory, type StateFileProblem } from './state-files.js';
import type { AppConfig } from './types.js';
import { ConfigError } from './config-error.js';
import { overlayBehind, startupRuleCheck } from './rule-sources.js';
import { ruleIssues } from './rules.js';
import { checkTree, isWithin, schemaDefaults, type ValidationIssue } from './validation.js';
import { lockedPathsOf, protectionIssues } from './write-checks.js';

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
