import { boundedRequest } from '../outgoing.js';
import type { SourceRequest } from './sources.js';

/**
 * One request of the price store to its source (docs/architecture.md#prices): bounded in size and
 * time, an HTTP 429 told apart with the wait it asks for, every other failure as the status text
 * the store shows.
 */

/** A day of quarters from two sources at most; ENTSO-E's A44 for a day is about 20 kB. */
export const PRICE_BODY_LIMIT = 1024 * 1024;
const REQUEST_TIMEOUT_MS = 20_000;
/** HTTP 429 stops asking for at least this long (or the Retry-After, when longer). */
const RATE_LIMIT_MS = 10 * 60_000;

export type FetchAnswer =
  | { kind: 'answer'; status: number; body: string }
  | { kind: 'failed'; status: string }
  | { kind: 'rate_limited'; waitMs: number };

export async function fetchAnswer(request: SourceRequest): Promise<FetchAnswer> {
  try {
    const { got } = await import('got');
    const answer = await boundedRequest(
      got,
      request.url,
      {
        method: request.method,
        headers: { accept: 'application/json, application/xml', ...request.headers },
        ...(request.body !== undefined ? { body: request.body } : {}),
        timeout: { request: REQUEST_TIMEOUT_MS },
      },
      PRICE_BODY_LIMIT,
    );
    if (answer.cut)
      return { kind: 'failed', status: `refused: answer longer than ${PRICE_BODY_LIMIT} bytes` };
    const status = answer.statusCode;
    if (status === 429) {
      const retryAfter = Number(answer.headers['retry-after']);
      const waitMs = Math.max(RATE_LIMIT_MS, Number.isFinite(retryAfter) ? retryAfter * 1000 : 0);
      return { kind: 'rate_limited', waitMs };
    }
    return { kind: 'answer', status, body: answer.body.toString('utf8') };
  } catch (error) {
    return { kind: 'failed', status: `error: ${(error as Error).message}` };
  }
}
