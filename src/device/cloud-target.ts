import { systemClock, type Clock, type Timer } from '../clock.js';
import { Backoff } from '../backoff.js';
import { escapeControls } from '../log-transports.js';
import type { Logger } from '../log.js';
import { outgoingCounters } from '../outgoing.js';
import { proxyAgentsFor, type ProxyAgents } from './proxy-agent.js';

/** Reports waiting per target while it is unreachable; beyond this the oldest are dropped and counted. */
export const BACKLOG_LIMIT = 120;
/** The longest Retry-After that is honoured as given; a longer one waits this long. */
const RETRY_AFTER_CAP_MS = 15 * 60_000;

export interface PushTargetOptions {
  name: string;
  url: string;
  userAgent: string;
  timeoutMs: number;
  logger: Logger;
  onUpdate: () => void;
  env: NodeJS.ProcessEnv;
  /** The retry timer and Retry-After dates (docs/architecture.md#clock). */
  clock?: Clock;
}

/**
 * One push target: a bounded backlog drained in order. What may succeed later (network errors,
 * timeouts, 408, 429, 5xx) keeps the report at the head and retries it with capped backoff and
 * jitter, or after the answer's Retry-After when that is longer. Any other answer rejects the
 * report: it is dropped and counted, and the next report goes out at once. A run of identical
 * rejections is logged once.
 */
export class PushTarget {
  readonly backlog: Buffer[] = [];
  sent = 0;
  failed = 0;
  dropped = 0;
  rejected = 0;
  /** Bounds of the outgoing request hit (docs/architecture.md#hostile-input). */
  readonly outgoing = outgoingCounters();
  lastError: string | undefined;
  private lastRejection: string | undefined;
  private sending = false;
  private retryTimer: Timer | undefined;
  private readonly backoff = new Backoff(1000, 60_000, 0.3);
  private agents: ProxyAgents | undefined;
  private closed = false;

  constructor(private readonly options: PushTargetOptions) {}

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  get url(): string {
    return this.options.url;
  }

  enqueue(body: Buffer): void {
    if (this.backlog.length >= BACKLOG_LIMIT) {
      this.backlog.shift();
      this.dropped += 1;
    }
    this.backlog.push(body);
    this.options.onUpdate();
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.sending || this.retryTimer || this.closed) return;
    this.sending = true;
    try {
      while (this.backlog.length > 0 && !this.closed) {
        // got loads with the first push: a daemon without cloud push never needs it.
        const { postReport } = await import('./report-post.js');
        this.agents ??= await proxyAgentsFor(new URL(this.options.url), this.options.env).catch(() => ({}));
        const outcome = await postReport(this.options.url, this.backlog[0]!, {
          timeoutMs: this.options.timeoutMs,
          userAgent: this.options.userAgent,
          agents: this.agents,
          ...(this.options.clock ? { now: this.options.clock.now } : {}),
        });
        if (this.closed) break;
        if (outcome.cut) this.outgoing.answers_cut += 1;
        if (outcome.kind === 'retry' && outcome.timedOut === true) this.outgoing.timeouts += 1;
        if (outcome.kind === 'retry') {
          this.scheduleRetry(outcome.reason, outcome.retryAfterMs);
          break;
        }
        this.backlog.shift();
        if (outcome.kind === 'sent') this.delivered();
        else this.reject(outcome.reason, outcome.answer);
        this.options.onUpdate();
      }
    } finally {
      this.sending = false;
      this.options.onUpdate();
    }
  }

  private delivered(): void {
    this.sent += 1;
    this.lastError = undefined;
    this.lastRejection = undefined;
    this.backoff.reset();
  }

  private reject(reason: string, answer: string): void {
    this.rejected += 1;
    this.lastError = `${reason}; report dropped`;
    this.backoff.reset();
    const key = `${reason}\n${answer}`;
    if (key === this.lastRejection) return;
    this.lastRejection = key;
    const start = answer.trim() === '' ? '' : `: ${escapeControls(answer.trim())}`;
    this.options.logger.warn(
      `push to ${this.options.name} rejected (${reason}${start}); report dropped, ` +
        'later rejections with the same answer are only counted',
    );
  }

  private scheduleRetry(reason: string, retryAfterMs: number | undefined): void {
    this.failed += 1;
    this.lastError = reason;
    const delay = Math.max(this.backoff.next(), Math.min(retryAfterMs ?? 0, RETRY_AFTER_CAP_MS));
    this.options.logger.warn(
      `push to ${this.options.name} failed (${reason}); retry in ${Math.round(delay / 100) / 10} s`,
    );
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      void this.drain();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.agents?.http?.destroy();
    this.agents?.https?.destroy();
  }

  status(): Record<string, unknown> {
    return {
      url: this.options.url,
      sent: this.sent,
      failed: this.failed,
      rejected: this.rejected,
      dropped: this.dropped,
      backlog: this.backlog.length,
      answers_cut: this.outgoing.answers_cut,
      timeouts: this.outgoing.timeouts,
      ...(this.lastError ? { error: this.lastError } : {}),
    };
  }
}
