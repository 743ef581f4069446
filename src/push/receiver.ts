import { boundedRequest, type BoundedAnswer } from '../outgoing.js';
import type { PushSecrets, PushTargetSettings } from './settings.js';

/**
 * The receiver of a push target (docs/architecture.md#push) as the client talks to it: one bounded
 * request to the target URL with its credentials and TLS settings, the reason an answer gives, and
 * the clock skew its Date header shows.
 */

const REQUEST_TIMEOUT_MS = 30_000;
/** Longest reason from an answer body kept in the status and the log. */
const REASON_CHARS = 200;

export class Receiver {
  private readonly url: URL;

  constructor(
    private readonly settings: PushTargetSettings,
    private readonly secrets: PushSecrets[string] | undefined,
    /** Bound of one request (default 30 s). */
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    this.url = new URL(settings.url);
    // The line protocol's timestamps are in ms (InfluxDB 1.x /write and VictoriaMetrics /write read `precision`).
    if (settings.kind === 'influx_line') this.url.searchParams.set('precision', 'ms');
  }

  /** One request with the target's authorization (a bearer token, else basic) and user agent. */
  async request(
    method: 'GET' | 'POST',
    body: Buffer | undefined,
    headers: Record<string, string>,
  ): Promise<BoundedAnswer> {
    const { got } = await import('got');
    const target = this.settings;
    const auth: Record<string, string> = {};
    const secrets = this.secrets;
    if (secrets?.bearer_token) auth.authorization = `Bearer ${secrets.bearer_token}`;
    else if (target.username !== undefined)
      auth.authorization = `Basic ${Buffer.from(`${target.username}:${secrets?.password ?? ''}`).toString('base64')}`;
    return boundedRequest(got, this.url, {
      method,
      headers: { ...headers, ...auth, 'user-agent': 'meter-gateway push' },
      ...(body === undefined ? {} : { body }),
      timeout: { request: this.timeoutMs },
      https: {
        ...(target.tls?.ca ? { certificateAuthority: target.tls.ca } : {}),
        rejectUnauthorized: target.tls?.insecure !== true,
      },
    });
  }
}

/** The start of an answer's body, control characters blanked, as `: <text>` (empty for none). */
export function reasonOf(answer: BoundedAnswer): string {
  const text = answer.body
    .toString('utf8', 0, Math.min(answer.body.length, REASON_CHARS))
    .replace(/\p{Cc}+/gu, ' ')
    .trim();
  return text === '' ? '' : `: ${text}`;
}

/**
 * The gateway's clock less the receiver's, from its Date header (RFC 9110 §6.6.1) against the
 * middle of the request (sent at `sentAt`, answered at `now`); undefined without a Date header.
 */
export function skewOf(answer: BoundedAnswer, sentAt: number, now: number): number | undefined {
  const date = Date.parse(answer.headers.date ?? '');
  if (Number.isNaN(date)) return undefined;
  // The Date header has 1 s resolution; the request took the time between.
  return Math.round((sentAt + now) / 2 - date);
}
