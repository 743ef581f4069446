/**
 * Hostile input refused at the edge, counted by reason (docs/architecture.md#hostile-input): a
 * datagram from port 0, a bad escape in a request target, a WebSocket upgrade over the per-address
 * cap, an oversized MQTT command, a slow stream client dropped ... Counting instead of logging each
 * one keeps a flood from filling the log; the counts are on `/metrics`
 * (`meter_gateway_refused_total{reason}`).
 */
export class Refusals {
  private readonly counts = new Map<string, number>();

  /** Counts one refusal; returns the new count (callers log the first of a kind, or every n-th). */
  add(reason: string): number {
    const count = (this.counts.get(reason) ?? 0) + 1;
    this.counts.set(reason, count);
    return count;
  }

  get(reason: string): number {
    return this.counts.get(reason) ?? 0;
  }

  /** Every reason with its count, sorted by reason. */
  entries(): [string, number][] {
    return [...this.counts].sort(([a], [b]) => a.localeCompare(b));
  }
}

/** Whether a count deserves a log line: the 1st, 10th, 100th, 1000th ... (a flood logs a handful). */
export function worthLogging(count: number): boolean {
  return count > 0 && 10 ** Math.floor(Math.log10(count)) === count;
}
