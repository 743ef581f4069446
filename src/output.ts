import type { AppConfig } from './config/types.js';
import type { AppContext } from './context.js';
import type { Service } from './service.js';

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

/** What `reconcile` gets: the output's slice of the configuration and the license verdict. */
export interface OutputView<Slice> {
  slice: Slice;
  /** Set while the output needs a license the device does not have: the output must be off. */
  blocked?: Blocked;
}

/**
 * An output (or device service) driven by its configuration (docs/architecture.md#output-contract):
 * it names the configuration nodes it watches and the license it needs, picks its typed slice,
 * and brings itself in line with that slice in `reconcile`. `start` and `stop` own the lifecycle
 * (store subscriptions, sockets, timers); settings are applied only in `reconcile`, which the
 * runner calls once after `start` and again after each change of a watched node. An output fails
 * alone: a `reconcile` that throws or rejects is logged and counted, the others still run.
 */
export interface Output<Slice> extends Service {
  readonly watches: readonly ConfigPath[];
  /** 'PLUS': runs only with license PLUS or PRO; under FREE it is reconciled as off. */
  readonly license?: 'PLUS';
  select(config: AppConfig): Slice;
  reconcile(view: OutputView<Slice>): void | Promise<void>;
}

/** Whether a changed leaf lies at or under a watched node. */
export function watchesPath(watches: readonly string[], changed: string): boolean {
  return watches.some((node) => changed === node || changed.startsWith(`${node}.`));
}

/** The view an output gets now: its slice, and the license gate applied in this one place. */
export function viewOf<Slice>(output: Output<Slice>, config: AppConfig): OutputView<Slice> {
  const view: OutputView<Slice> = { slice: output.select(config) };
  if (output.license === 'PLUS' && config.license.type === 'FREE') view.blocked = 'license FREE';
  return view;
}

/**
 * Runs an output as a service of the daemon: start, then reconcile with the current view; on
 * every settings change that touches a watched node (or the license of a licensed output),
 * reconcile again. The change listener is registered under the output's name, so a `reconcile`
 * that throws shows in the settings write's failures and in the output's listener error count.
 */
export function runOutput<Slice>(ctx: AppContext, output: Output<Slice>): Service {
  const watches: readonly string[] = output.license ? [...output.watches, 'license.type'] : output.watches;
  const reconcile = (): Promise<void> => Promise.resolve(output.reconcile(viewOf(output, ctx.config.config)));
  const onChange = (paths: readonly string[]): void => {
    if (!paths.some((path) => watchesPath(watches, path))) return;
    reconcile().catch((error: unknown) => {
      ctx.services.countFailure(output.name);
      ctx.logger.error(`${output.name} failed to apply a settings change: ${(error as Error).message}`);
    });
  };
  let running = false;
  return {
    name: output.name,
    required: output.required,
    async start() {
      await output.start();
      running = true;
      ctx.config.subscribe(output.name, 'change', onChange);
      try {
        await reconcile();
      } catch (error) {
        ctx.config.off('change', onChange);
        running = false;
        throw error;
      }
    },
    async stop() {
      if (running) ctx.config.off('change', onChange);
      running = false;
      await output.stop();
    },
  };
}
