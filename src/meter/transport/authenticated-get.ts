import { randomBytes } from 'node:crypto';
import { parseChallenges } from '../../digest/auth-params.js';
import { basicAuthorization, digestAuthorization, pickChallenge, type Credentials } from './http-auth.js';

/**
 * GETs a JSON document with got (loaded with the first request), answering a 401's Basic or
 * Digest challenge (RFC 7617, RFC 7616) with `credentials` in an afterResponse hook: the request
 * is sent once more with the Authorization header, at most once. Resolves with the status and the
 * parsed body (undefined when the body is not JSON); rejects on network errors and timeouts.
 */
export async function getJson(
  url: URL,
  credentials: Credentials,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  const { got } = await import('got');
  const response = await got.get(url, {
    headers: { accept: 'application/json' },
    timeout: { request: timeoutMs },
    retry: { limit: 0 },
    throwHttpErrors: false,
    hooks: {
      afterResponse: [
        (answer, retryWithMergedOptions) => {
          const sentWithAuthorization = answer.request.options.headers.authorization !== undefined;
          if (answer.statusCode !== 401 || sentWithAuthorization) return answer;
          const header = answer.headers['www-authenticate'];
          const challenge = pickChallenge(
            parseChallenges(Array.isArray(header) ? header.join(', ') : (header ?? '')),
          );
          if (!challenge) return answer;
          const authorization =
            challenge.scheme === 'basic'
              ? basicAuthorization(credentials)
              : digestAuthorization(challenge, credentials, {
                  method: 'GET',
                  uri: `${url.pathname}${url.search}`,
                  nc: 1,
                  cnonce: randomBytes(12).toString('hex'),
                });
          return retryWithMergedOptions({ headers: { authorization } });
        },
      ],
    },
  });
  let body: unknown;
  try {
    body = JSON.parse(response.body) as unknown;
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body };
}
