import { randomBytes } from 'node:crypto';
import { parseChallenges } from '../../digest/auth-params.js';
import { boundedRequest, type BoundedAnswer } from '../../outgoing.js';
import { basicAuthorization, digestAuthorization, pickChallenge, type Credentials } from './http-auth.js';

/**
 * GETs a JSON document with got (loaded with the first request), answering a 401's Basic or
 * Digest challenge (RFC 7617, RFC 7616) with `credentials`: the request is sent once more with the
 * Authorization header, at most once. At most OUTGOING_BODY_LIMIT bytes of an answer are read
 * (docs/architecture.md#hostile-input): a longer document is aborted there and reads as not JSON.
 * Resolves with the status and the parsed body (undefined when the body is not JSON, or cut);
 * rejects on network errors and timeouts.
 */
export async function getJson(
  url: URL,
  credentials: Credentials,
  timeoutMs: number,
): Promise<{ status: number; body: unknown; cut: boolean }> {
  const { got } = await import('got');
  const get = (authorization?: string): Promise<BoundedAnswer> =>
    boundedRequest(got, url, {
      headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
      timeout: { request: timeoutMs },
    });
  let answer = await get();
  const authorization = answer.statusCode === 401 ? authorizationFor(answer, url, credentials) : undefined;
  if (authorization) answer = await get(authorization);
  let body: unknown;
  try {
    body = answer.cut ? undefined : (JSON.parse(answer.body.toString('utf8')) as unknown);
  } catch {
    body = undefined;
  }
  return { status: answer.statusCode, body, cut: answer.cut };
}

/** The Authorization header answering the 401's challenge, or undefined when it offers none known. */
function authorizationFor(answer: BoundedAnswer, url: URL, credentials: Credentials): string | undefined {
  const header = answer.headers['www-authenticate'];
  const challenge = pickChallenge(
    parseChallenges(Array.isArray(header) ? header.join(', ') : (header ?? '')),
  );
  if (!challenge) return undefined;
  return challenge.scheme === 'basic'
    ? basicAuthorization(credentials)
    : digestAuthorization(challenge, credentials, {
        method: 'GET',
        uri: `${url.pathname}${url.search}`,
        nc: 1,
        cnonce: randomBytes(12).toString('hex'),
      });
}
