import type { AppConfig } from './config/types.js';
import type { MeterHandle, MeterRegistry } from './reading/meter-registry.js';
import type { OutputName, OutputState } from './contracts/outputs.js';

/**
 * Dot path of a node of the configuration tree: a section (`mqtt`), a group (`mqtt.discovery`) or
 * a leaf (`mqtt.url`). Arrays (the custom Modbus layout) are leaves.
 */
export type ConfigPath = NodePaths<AppConfig>;

type NodePaths<T> = T extends readonly unknown[]
  ? never
  : T extends object
    ? { [K in keyof T & string]: K | `${K}.${NodePaths<T[K]>}` }[keyof T & string]
    : never;

/** Why a licensed output is off whatever its settings say. */
export type Blocked = 'license FREE';

/** What `apply` gets: the output's slice of the configuration and the license verdict. */
export interface OutputView<Slice> {
  slice: Slice;
  /** Set while the output needs a license the device does not have: the output must be off. */
  blocked?: Blocked;
}

/**
 * The state of an output as the runner writes it (docs/architecture.md#output-contract), the same
 * six words for every output:
 * - `starting`: started, its first apply has not ended yet;
 * - `running`: runs as configured;
 * - `retrying`: its last apply failed (or it lost what it serves) and the runner or the output
 *   tries again: `error` says why, `retry_in_ms` when;
 * - `error`: it failed and nothing tries again (a required part whose start failed);
 * - `disabled`: its settings switch it off;
 * - `blocked`: its settings ask for it, the license does not allow it.
 */
export type { OutputName, OutputState } from './contracts/outputs.js';

/** An output's status line: its state, the runner's failure fields and the facts the output reported. */
export type OutputStatus<Facts extends object = Record<never, never>> = {
  state: OutputState;
  /** Why it is `retrying` or in `error`. */
  error?: string;
  /** When the runner tries again (`retrying` after a failed apply). */
  retry_in_ms?: number;
} & Partial<Facts>;

/**
 * A meter an output's settings name, resolved by the runner (docs/architecture.md#output-contract):
 * `handle` is the registered meter of that id now, `undefined` while none runs under it (a state
 * the output shows, never a reason to read another meter). A meter restarted with new settings is
 * a new handle, so the slice that holds it differs and the output is applied again.
 */
export interface MeterRef {
  readonly id: string;
  readonly handle: MeterHandle | undefined;
}

/** What `select` resolves meter ids with. */
export interface MeterLookup {
  ref(id: string): MeterRef;
  /** Every registered meter, the primary first (outputs that serve all of them). */
  all(): readonly MeterHandle[];
}

/** The registry seen by `select`. */
export function meterLookup(registry: MeterRegistry): MeterLookup {
  return {
    ref: (id) => ({ id, handle: registry.get(id) }),
    all: () => registry.list(),
  };
}

/**
 * What a running output tells the runner between applies: its live facts (counters, the peer it
 * serves) and trouble it retries on its own (a broker that went away). The runner is the one
 * writer of the status line; the output only reports.
 */
export interface StatusPort<Facts extends object> {
  /** Merged into the facts of the status line; a field given as `undefined` is removed. */
  facts(update: Partial<Facts>): void;
  /** `retrying` with `reason` while the output retries by itself; `undefined` once it serves again. */
  trouble(reason: string | undefined): void;
}

/**
 * An output declared to the runner (docs/architecture.md#output-contract): the configuration it
 * watches, the slice it runs on, and how it applies a new slice. The runner alone subscribes to
 * the configuration and to the meter registry, recomputes the slice, compares it with the last one
 * applied (`sameSlice`) and calls `apply` only on a real change, one at a time; it retries a failed
 * start or apply with capped backoff and writes the status line.
 *
 * `apply(next, previous)` brings the output from `previous` (the last view applied successfully,
 * `undefined` at the first) to `next`, and resolves to the facts of the status line (the port it
 * listens on, the meter it serves). It rejects whenever the output does not run as `next` asks: a
 * failure it swallows is a defect. After a rejection the runner calls it again with the same
 * `previous`, so an apply that failed half way must leave what it opened closed.
 */
export interface DeclaredOutput<
  Slice,
  Facts extends object = Record<never, never>,
  Name extends string = OutputName,
> {
  /**
   * Its status line's key: one of the declared list (src/contracts/outputs.ts) for every output of
   * the daemon; a test's own output may take any name (`Name` = string).
   */
  readonly name: Name;
  readonly required?: boolean;
  readonly watches: readonly ConfigPath[];
  /** 'PLUS': runs only with license PLUS or PRO; under FREE it is applied as blocked. */
  readonly license?: 'PLUS';
  select(config: AppConfig, meters: MeterLookup): Slice;
  /** Whether the slice asks the output to run (`disabled` when not); absent: it always runs. */
  enabled?(slice: Slice): boolean;
  /** Lifecycle before the first apply (subscriptions, timers); `status` stays valid until `stop`. */
  start(status: StatusPort<Facts>): Promise<void>;
  apply(
    next: OutputView<Slice>,
    previous: OutputView<Slice> | undefined,
  ): Facts | void | Promise<Facts | void>;
  /** Releases every socket, timer and subscription. */
  stop(): Promise<void>;
}

/**
 * Whether two slices are the same (docs/architecture.md#output-contract): plain objects and arrays
 * by their contents, a `MeterRef` by its id and handle (the same registered meter, not just the
 * same id), anything else (a class instance, a function) by identity.
 */
export function sameSlice(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameSlice(item, b[index]));
  }
  if (!isPlain(a) || !isPlain(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return keysA.every((key) => Object.hasOwn(recordB, key) && sameSlice(recordA[key], recordB[key]));
}

/** A literal object (a MeterRef is one: its handle is compared by identity below it). */
function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
