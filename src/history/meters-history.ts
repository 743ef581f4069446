import type { AppContext } from '../context.js';
import { componentLogger, type Logger } from '../log.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import type { Service } from '../service.js';
import { HistoryRecorder } from './recorder.js';

/**
 * The history of every further meter (docs/architecture.md#several-meters): one recorder per meter,
 * each with its own ring files (`<state>/history/meters/<id>/`), so a damaged file is rebuilt for
 * that meter alone. Recorders come and go with the meters in the registry; the primary's recorder
 * is the daemon's `history` service, unchanged.
 */
export class MetersHistory implements Service {
  readonly name = 'meters history';
  private readonly recorders = new Map<string, { store: unknown; recorder: HistoryRecorder }>();
  private queue: Promise<void> = Promise.resolve();
  private running = false;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly main: HistoryRecorder,
  ) {}

  /** The recorder of meter `id`, undefined for an unknown meter. */
  recorderOf(id: string): HistoryRecorder | undefined {
    if (id === 'main') return this.main;
    return this.recorders.get(id)?.recorder;
  }

  async start(): Promise<void> {
    this.running = true;
    this.context.meters.subscribe(this.name, 'added', this.added);
    this.context.meters.subscribe(this.name, 'removed', this.removed);
    this.requestSync();
    await this.queue;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.context.meters.off('added', this.added);
    this.context.meters.off('removed', this.removed);
    this.requestSync();
    await this.queue;
  }

  /**
   * Registry changes coalesce (docs/architecture.md#several-meters): an event only asks for one
   * sync, and a sync brings the recorders in line with the registry as it is when it runs, so a
   * burst of meter-list changes costs one pass, not one recorder start and stop per change.
   */
  private readonly added = (): void => this.requestSync();
  private readonly removed = (): void => this.requestSync();
  private syncRequested = false;

  private requestSync(): void {
    if (this.syncRequested) return;
    this.syncRequested = true;
    this.queue = this.queue.then(() => {
      this.syncRequested = false;
      return this.sync();
    });
  }

  private async sync(): Promise<void> {
    const wanted = new Map<string, MeterHandle>();
    if (this.running)
      for (const meter of this.context.meters.list())
        if (meter.kind !== 'primary') wanted.set(meter.id, meter);
    for (const [id, entry] of [...this.recorders]) {
      if (wanted.get(id)?.store === entry.store) continue;
      this.recorders.delete(id);
      await entry.recorder.stop();
    }
    for (const meter of wanted.values()) {
      if (this.recorders.has(meter.id)) continue;
      // A later change removed it meanwhile: the next sync (already requested) sees that.
      if (this.syncRequested) return;
      const recorder = new HistoryRecorder(this.context, componentLogger(this.logger, meter.id), {
        id: meter.id,
        store: meter.store,
      });
      try {
        await recorder.start();
        this.recorders.set(meter.id, { store: meter.store, recorder });
      } catch (error) {
        this.logger.error(`history of meter ${meter.id} failed to start: ${(error as Error).message}`);
      }
    }
  }
}
