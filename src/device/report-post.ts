import { boundedRequest } from '../outgoing.js';
import { systemClock } from '../clock.js';
import type { ProxyAgents } from './proxy-agent.js';

export interface ReportPostOptions {
  /** The whole exchange, connect to the end of the answer. */
  timeoutMs: number;
  userAgent: string;
  agents: ProxyAgents;
  /** Now, for a Retry-After given as a date. */
  now?: () => number;
}

/**
 * How a POST ended, and what to do with the report:
 * - `sent`: a 2xx answer;
 * - `retry`: a network error, a timeout, 408, 429 or a 5xx, which may succeed later (after
 *   `retryAfterMs` when the answer had a Retry-After header);
 * - `rejected`: any other answer (other 4xx, 3xx): sending the same report again gives the same
 *   answer, so it is dropped. `answer` is the start of the answer body, for the log.
 */
export type PostOutcome = (
  | { kind: 'sent' }
  | { kind: 'retry'; reason: string; retryAfterMs?: number; timedOut?: boolean }
  | { kind: 'rejected'; reason: string; answer: string }
) & {
  /** The answer was longer than OUTGOING_BODY_LIMIT: it was aborted there (docs/architecture.md#hostile-input). */
  cut?: boolean;
};

/** How much of a rejecting answer is kept for the log. */
const ANSWER_START = 200;

/**
 * POSTs a JSON body with got (loaded with the first push). User info in the URL becomes Basic auth.
 * got's own retries are off and no redirect is followed: the push queue decides what is retried.
 * At most OUTGOING_BODY_LIMIT bytes of the answer are read (docs/architecture.md#hostile-input).
 */
export async function postReport(
  url: string,
  body: Buffer,
  options: ReportPostOptions,
): Promise<PostOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { kind: 'rejected', reason: `invalid URL ${JSON.stringify(url)}`, answer: '' };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return { kind: 'rejected', reason: `unsupported URL scheme ${target.protocol}`, answer: '' };
  const { got, TimeoutError, RequestError } = await import('got');
  try {
    const response = await boundedRequest(got, target, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': options.userAgent },
      timeout: { request: options.timeoutMs },
      agent: options.agents,
    });
    const status = response.statusCode;
    const cut = response.cut ? { cut: true } : {};
    if (status >= 200 && status < 300) return { kind: 'sent', ...cut };
    const reason = `HTTP ${status} ${response.statusMessage ?? ''}`.trim();
    if (retryable(status)) {
      const retryAfterMs = retryAfter(response.headers['retry-after'], options.now ?? systemClock.now);
      return { kind: 'retry', reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...cut };
    }
    const answer = response.body.subarray(0, ANSWER_START).toString('utf8');
    return { kind: 'rejected', reason, answer, ...cut };
  } catch (error) {
    if (error instanceof TimeoutError)
      return { kind: 'retry', reason: `timeout after ${options.timeoutMs} ms`, timedOut: true };
    if (error instanceof RequestError) return { kind: 'retry', reason: error.message };
    throw error;
  }
}

/** RFC 9110 §15.5.9 (408), RFC 6585 §4 (429) and every 5xx: the same request may succeed later. */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** RFC 9110 §10.2.3 Retry-After: delay-seconds or an HTTP-date; in ms from now, or undefined. */
export function retryAfter(value: string | undefined, now: () => number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
