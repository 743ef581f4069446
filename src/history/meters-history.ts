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
    for (const meter of this.context.meters.list()) if (meter.kind !== 'primary') this.added(meter);
    await this.queue;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.context.meters.off('added', this.added);
    this.context.meters.off('removed', this.removed);
    for (const id of [...this.recorders.keys()]) this.removed({ id } as MeterHandle);
    await this.queue;
  }

  private readonly added = (meter: MeterHandle): void => {
    this.queue = this.queue.then(async () => {
      if (!this.running || this.recorders.has(meter.id)) return;
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
    });
  };

  private readonly removed = (meter: Pick<MeterHandle, 'id'>): void => {
    this.queue = this.queue.then(async () => {
      const entry = this.recorders.get(meter.id);
      if (!entry) return;
      this.recorders.delete(meter.id);
      await entry.recorder.stop();
    });
  };
}
