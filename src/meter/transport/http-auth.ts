import { randomBytes } from 'node:crypto';
import { parseChallenges, quoted, type Challenge } from '../../digest/auth-params.js';
import {
  digestAlgorithm,
  digestHex,
  digestResponseValue,
  type DigestAlgorithm,
} from '../../digest/digest.js';

/**
 * Client side of HTTP Basic (RFC 7617) and Digest (RFC 7616) authentication for fetch. The first
 * request goes out without credentials; a 401 names the scheme. Digest is answered with qop=auth
 * (or the RFC 2069 form when the server offers no qop), MD5 / MD5-sess / SHA-256 / SHA-256-sess,
 * preferring SHA-256 when several challenges are offered. Later requests reuse the nonce with an
 * incremented nonce count; a 401 with stale=true is answered once more with the new nonce.
 */

export interface Credentials {
  username: string;
  password: string;
}

const PREFERENCE: readonly DigestAlgorithm[] = ['SHA-256', 'SHA-256-sess', 'MD5', 'MD5-sess'];

function algorithmOf(challenge: Challenge): DigestAlgorithm | undefined {
  return digestAlgorithm(challenge.params.algorithm)?.name;
}

/** The challenge to answer: Digest with the strongest supported algorithm, else Basic. */
export function pickChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  const digests = challenges.filter(
    (c) => c.scheme === 'digest' && c.params.nonce !== undefined && algorithmOf(c),
  );
  digests.sort((a, b) => PREFERENCE.indexOf(algorithmOf(a)!) - PREFERENCE.indexOf(algorithmOf(b)!));
  return digests[0] ?? challenges.find((c) => c.scheme === 'basic');
}

export interface DigestRequest {
  method: string;
  /** Request target as sent (path and query). */
  uri: string;
  /** Nonce count, 1 for the first use of a nonce. */
  nc: number;
  cnonce: string;
}

/** RFC 7616 §3.4 response value. */
export function digestResponse(
  challenge: Challenge,
  credentials: Credentials,
  request: DigestRequest,
): string {
  const algorithm = digestAlgorithm(algorithmOf(challenge))!;
  const { realm = '', nonce = '' } = challenge.params;
  const ha1 = digestHex(algorithm.hash, `${credentials.username}:${realm}:${credentials.password}`);
  const ha2 = digestHex(algorithm.hash, `${request.method}:${request.uri}`);
  const nc = offersQopAuth(challenge) ? request.nc.toString(16).padStart(8, '0') : undefined;
  return digestResponseValue(algorithm, { ha1, ha2, nonce, cnonce: request.cnonce, nc });
}

function offersQopAuth(challenge: Challenge): boolean {
  const qop = challenge.params.qop;
  return qop !== undefined && qop.split(',').some((option) => option.trim().toLowerCase() === 'auth');
}

/** The Authorization header value answering a Digest challenge (RFC 7616 §3.4). */
export function digestAuthorization(
  challenge: Challenge,
  credentials: Credentials,
  request: DigestRequest,
): string {
  const algorithm = algorithmOf(challenge) ?? 'MD5';
  const { realm = '', nonce = '', opaque } = challenge.params;
  const userhash = challenge.params.userhash?.toLowerCase() === 'true';
  // RFC 7616 §3.4.4: userhash = H(username ":" realm).
  const username = userhash
    ? digestHex(digestAlgorithm(algorithm)!.hash, `${credentials.username}:${realm}`)
    : credentials.username;
  const parts = [
    `username=${quoted(username)}`,
    `realm=${quoted(realm)}`,
    `uri=${quoted(request.uri)}`,
    `algorithm=${algorithm}`,
    `nonce=${quoted(nonce)}`,
  ];
  if (offersQopAuth(challenge)) {
    parts.push(
      `nc=${request.nc.toString(16).padStart(8, '0')}`,
      `cnonce=${quoted(request.cnonce)}`,
      'qop=auth',
    );
  }
  parts.push(`response=${quoted(digestResponse(challenge, credentials, request))}`);
  if (opaque !== undefined) parts.push(`opaque=${quoted(opaque)}`);
  if (userhash) parts.push('userhash=true');
  return `Digest ${parts.join(', ')}`;
}

export function basicAuthorization(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
}

/** The request options read here; the others (signal, mode, cache ...) are passed on as they are. */
type FetchInit = { headers?: Record<string, string>; method?: string; signal?: AbortSignal | null };
type Fetch = (url: string | URL, init: FetchInit) => Promise<Response>;

/**
 * A fetch that answers Basic and Digest challenges with `credentials`. The returned function keeps
 * the last challenge so streams that reconnect authenticate at once.
 */
export function authenticatingFetch(
  credentials: Credentials,
  base: Fetch = (url, init) => fetch(url, init as RequestInit),
): Fetch {
  let challenge: Challenge | undefined;
  let nc = 0;

  const authorize = (url: string | URL, init: FetchInit): FetchInit => {
    if (!challenge) return init;
    const target = new URL(url);
    const value =
      challenge.scheme === 'basic'
        ? basicAuthorization(credentials)
        : digestAuthorization(challenge, credentials, {
            method: (init.method ?? 'GET').toUpperCase(),
            uri: `${target.pathname}${target.search}`,
            nc: ++nc,
            cnonce: randomBytes(12).toString('hex'),
          });
    return { ...init, headers: { ...init.headers, Authorization: value } };
  };

  return async (url, init) => {
    const answeredBefore = challenge !== undefined;
    const first = await base(url, authorize(url, init));
    if (first.status !== 401) return first;
    const offered = pickChallenge(parseChallenges(first.headers.get('www-authenticate') ?? ''));
    // Retry once: the first 401 of a fresh client, or a stale nonce (RFC 7616 §3.3 stale=true).
    const stale = offered?.params.stale?.toLowerCase() === 'true';
    if (!offered || (answeredBefore && !stale)) return first;
    await first.body?.cancel();
    challenge = offered;
    nc = 0;
    return base(url, authorize(url, init));
  };
}
