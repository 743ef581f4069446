/**
 * The bounded offline queue of report messages. mqtt.js would queue every publish made while
 * offline without a limit; a gateway whose broker is down for days must not grow without bound, so
 * the publisher keeps at most `maxMessages` messages and `maxBytes` payload bytes, dropping the
 * oldest first and counting what it dropped.
 */
export interface QueuedMessage {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
}

export interface QueueLimits {
  maxMessages: number;
  maxBytes: number;
}

export const OFFLINE_QUEUE_LIMITS: QueueLimits = { maxMessages: 1000, maxBytes: 1024 * 1024 };

export class OfflineQueue {
  private items: QueuedMessage[] = [];
  private bytes = 0;
  /** Messages dropped because the queue was full (oldest first), since start. */
  dropped = 0;

  constructor(private readonly limits: QueueLimits) {}

  get length(): number {
    return this.items.length;
  }

  get size(): number {
    return this.bytes;
  }

  /** Appends a message, dropping the oldest ones while a limit is exceeded. */
  push(message: QueuedMessage): void {
    this.items.push(message);
    this.bytes += Buffer.byteLength(message.payload);
    this.enforceLimits();
  }

  /** Puts messages back at the head in their order (in-flight messages of a lost connection). */
  requeue(messages: readonly QueuedMessage[]): void {
    if (messages.length === 0) return;
    this.items = [...messages, ...this.items];
    for (const message of messages) this.bytes += Buffer.byteLength(message.payload);
    this.enforceLimits();
  }

  /** Removes and returns every queued message, oldest first. */
  drain(): QueuedMessage[] {
    const items = this.items;
    this.items = [];
    this.bytes = 0;
    return items;
  }

  private enforceLimits(): void {
    while (
      this.items.length > this.limits.maxMessages ||
      (this.bytes > this.limits.maxBytes && this.items.length > 0)
    ) {
      const oldest = this.items.shift()!;
      this.bytes -= Buffer.byteLength(oldest.payload);
      this.dropped += 1;
    }
  }
}
