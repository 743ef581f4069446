import { EventEmitter } from 'node:events';

/** One listener that threw while an event was delivered. */
export interface ListenerFailure {
  /** The output that subscribed (`subscribe(owner, ...)`), else the function's name. */
  owner: string;
  event: string;
  message: string;
}

type Listener = object;

/** What a delivery whose listeners may answer with promises gives its caller. */
export interface Delivery {
  /** Resolves once every promise settled, to the listeners that threw or rejected. */
  settled: Promise<ListenerFailure[]>;
  /** The owners whose promise has not settled yet. */
  pending: () => string[];
}

/**
 * An event emitter whose listeners fail alone (docs/architecture.md#data-flow): `deliver` calls every
 * listener inside its own try/catch, so an output that throws on a reading or a settings change neither
 * stops the emitter's caller nor keeps the outputs after it from seeing the event. Failures are
 * counted per owner and handed to `onListenerFailure` (the daemon logs them and shows the counts
 * in /api/v1/system).
 */
export class GuardedEmitter<Events extends Record<keyof Events, unknown[]>> extends EventEmitter<Events> {
  private readonly owners = new WeakMap<Listener, string>();
  readonly failureCounts = new Map<string, number>();
  onListenerFailure: ((failure: ListenerFailure) => void) | undefined;

  constructor() {
    super();
    // One listener per output and event; their number is not a leak.
    this.setMaxListeners(0);
  }

  /** Adds `listener` for `event` on behalf of `owner` (the output's name in logs and counts). */
  subscribe<K extends keyof Events & string>(
    owner: string,
    event: K,
    listener: (...args: Events[K]) => void | Promise<void>,
  ): void {
    this.owners.set(listener as Listener, owner);
    (this as EventEmitter).on(event, listener as (...args: unknown[]) => void);
  }

  /** Removes a listener added with `subscribe`. */
  unsubscribe<K extends keyof Events & string>(
    event: K,
    listener: (...args: Events[K]) => void | Promise<void>,
  ): void {
    (this as EventEmitter).off(event, listener as (...args: unknown[]) => void);
  }

  /** Delivers an event to every listener, each isolated; returns the failures. */
  protected deliver<K extends keyof Events & string>(event: K, ...args: Events[K]): ListenerFailure[] {
    const failures: ListenerFailure[] = [];
    for (const raw of (this as EventEmitter).rawListeners(event)) {
      try {
        (raw as (...values: unknown[]) => void).apply(this, args);
      } catch (error) {
        failures.push(this.failed(raw, event, error));
      }
    }
    return failures;
  }

  /**
   * Delivers an event like `deliver`, then waits for the listeners that answered with a promise
   * (an output reconciling a settings change): `settled` names every listener that threw or
   * rejected, so the writer can report what was stored but not applied; `pending` names those
   * whose promise has not settled yet (a writer that stops waiting answers with them).
   */
  protected deliverSettled<K extends keyof Events & string>(event: K, ...args: Events[K]): Delivery {
    const failures: ListenerFailure[] = [];
    // Promises still open per owner: one owner may have several listeners at work.
    const waiting = new Map<string, number>();
    const pending: Promise<void>[] = [];
    for (const raw of (this as EventEmitter).rawListeners(event)) {
      try {
        const answer: unknown = (raw as (...values: unknown[]) => unknown).apply(this, args);
        if (answer instanceof Promise) {
          const owner = this.ownerOf(raw);
          waiting.set(owner, (waiting.get(owner) ?? 0) + 1);
          pending.push(
            answer
              .then(noop, (error: unknown) => void failures.push(this.failed(raw, event, error)))
              .finally(() => {
                const left = waiting.get(owner)! - 1;
                if (left === 0) waiting.delete(owner);
                else waiting.set(owner, left);
              }),
          );
        }
      } catch (error) {
        failures.push(this.failed(raw, event, error));
      }
    }
    return { settled: Promise.all(pending).then(() => failures), pending: () => [...waiting.keys()] };
  }

  /** The owner a listener was subscribed for, else its function's name. */
  private ownerOf(raw: unknown): string {
    // rawListeners gives once() wrappers, whose `listener` is the function subscribed.
    const original = ((raw as { listener?: Listener }).listener ?? raw) as Listener;
    return this.owners.get(original) ?? ((original as { name?: string }).name || 'anonymous listener');
  }

  /** Counts and reports one listener's failure under its owner. */
  private failed(raw: unknown, event: string, error: unknown): ListenerFailure {
    const owner = this.ownerOf(raw);
    const failure = { owner, event, message: error instanceof Error ? error.message : String(error) };
    this.failureCounts.set(owner, (this.failureCounts.get(owner) ?? 0) + 1);
    this.onListenerFailure?.(failure);
    return failure;
  }
}

function noop(): void {}
