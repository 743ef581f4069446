/**
 * A per-client rate limit (docs/architecture.md#hostile-input): a token bucket per remote address,
 * `burst` requests at once and one more every `refillMs`; the table of addresses is bounded, the
 * least recently seen is forgotten first. Used for writes whose effect is heavy (a change of the
 * meter list starts and stops meter inputs and history recorders).
 */
export interface ClientRateOptions {
  burst: number;
  refillMs: number;
  maxClients: number;
}

export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number };

export class ClientRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly now: () => number,
    readonly options: ClientRateOptions,
  ) {}

  /** Whether `client` may make one more request now; nothing is spent. */
  check(client: string): RateVerdict {
    const tokens = this.refilled(client).tokens;
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfterMs: Math.ceil((1 - tokens) * this.options.refillMs) };
  }

  /** Spends one request of `client` (after it succeeded: a refused request costs nothing). */
  spend(client: string): void {
    const bucket = this.refilled(client);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
  }

  private refilled(client: string): { tokens: number; at: number } {
    const now = this.now();
    const { burst, refillMs, maxClients } = this.options;
    const bucket = this.buckets.get(client) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) / refillMs);
    bucket.at = now;
    this.buckets.delete(client);
    if (this.buckets.size >= maxClients) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(client, bucket);
    return bucket;
  }
}
