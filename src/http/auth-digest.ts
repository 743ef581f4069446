import { timingSafeEqual } from 'node:crypto';
import { decodeExtValue, quoted } from '../digest/auth-params.js';
import {
  digestAlgorithm,
  digestHex,
  digestResponseValue,
  type DigestAlgorithm,
  type DigestHash,
} from '../digest/digest.js';
import type { NonceCounters, NonceIssuer } from './digest-nonce.js';

/**
 * HTTP Digest access authentication, RFC 7616, qop=auth only:
 *   A1 = username ":" realm ":" password               (-sess: H(A1) ":" nonce ":" cnonce)
 *   A2 = method ":" request-uri
 *   response = H( H(A1) ":" nonce ":" nc ":" cnonce ":" qop ":" H(A2) )          (§3.4.1)
 * The user name is ignored for the decision (docs/architecture.md#auth) but is part of A1, so the client's
 * own value is used in the hash.
 */
/** Challenges in order of preference (RFC 7616 §3.7: strongest first, MD5 last for old clients). */
export const OFFERED_ALGORITHMS: readonly DigestAlgorithm[] = ['SHA-256', 'MD5-sess', 'MD5'];

/**
 * One WWW-Authenticate value per algorithm, all with the same nonce (a client that merges the
 * challenges, like python-requests, still gets a consistent set).
 */
export function digestChallenges(realm: string, nonce: string, opaque: string, stale: boolean): string[] {
  return OFFERED_ALGORITHMS.map(
    (algorithm) =>
      `Digest realm=${quoted(realm)}, qop="auth", algorithm=${algorithm}, nonce=${quoted(nonce)}, ` +
      `opaque=${quoted(opaque)}${stale ? ', stale=true' : ''}`,
  );
}

export type DigestVerdict = 'ok' | 'stale' | 'invalid' | 'replay';

export interface DigestContext {
  method: string;
  /** Request-target exactly as received. */
  url: string;
  realm: string;
  password: string;
  now: number;
}

/** RFC 7616 §3.4.6: the uri parameter must name the request-target (absolute form allowed). */
function sameTarget(uri: string, url: string): boolean {
  if (uri === url) return true;
  if (!/^https?:\/\//i.test(uri)) return false;
  try {
    const parsed = new URL(uri);
    return parsed.pathname + parsed.search === url;
  } catch {
    return false;
  }
}

/** Constant-time comparison of the client's response with the expected one (both hex). */
function sameHex(given: string, expected: string): boolean {
  const left = Buffer.from(given, 'hex');
  const right = Buffer.from(expected, 'hex');
  return given.length === expected.length && left.length === right.length && timingSafeEqual(left, right);
}

export class DigestVerifier {
  /** Last H(A1) and H(A2) per algorithm: a client repeats both on every request. */
  private readonly lastA1 = { md5: new LastHash('md5'), sha256: new LastHash('sha256') };
  private readonly lastA2 = { md5: new LastHash('md5'), sha256: new LastHash('sha256') };

  constructor(
    private readonly issuer: NonceIssuer,
    private readonly counters: NonceCounters,
    private readonly lifetimeMs: number,
  ) {}

  verify(params: ReadonlyMap<string, string>, request: DigestContext): DigestVerdict {
    const algorithm = digestAlgorithm(params.get('algorithm'));
    const username = this.username(params);
    const nonce = params.get('nonce');
    const uri = params.get('uri');
    const response = params.get('response');
    const cnonce = params.get('cnonce');
    const nc = params.get('nc');
    if (!algorithm || username === undefined || !nonce || uri === undefined || !response || !cnonce)
      return 'invalid';
    if (params.get('qop') !== 'auth' || !nc || !/^[0-9a-fA-F]{8}$/.test(nc)) return 'invalid';
    if (params.get('realm') !== request.realm || !sameTarget(uri, request.url)) return 'invalid';

    const ha1 = this.ha1(algorithm.hash, username, request.realm, request.password);
    const ha2 = this.ha2(algorithm.hash, request.method, uri);
    const expected = digestResponseValue(algorithm, { ha1, ha2, nonce, cnonce, nc });
    if (!sameHex(response, expected)) return 'invalid';

    // The password is right from here on; a nonce that is not (or no longer) ours is "stale"
    // (RFC 7616 §3.3: the client retries with the new nonce without asking the user).
    const issuedAt = this.counters.issuedAtOf(nonce) ?? this.issuer.issuedAt(nonce);
    if (
      issuedAt === undefined ||
      request.now - issuedAt > this.lifetimeMs ||
      issuedAt > request.now + 60_000
    ) {
      return 'stale';
    }
    const verdict = this.counters.use(nonce, issuedAt, parseInt(nc, 16));
    if (verdict === 'replay') return 'replay';
    return verdict === 'fresh' ? 'ok' : 'stale';
  }

  /** `username`, or `username*` in RFC 8187 form (§3.4.4); userhash is not offered, so not accepted. */
  private username(params: ReadonlyMap<string, string>): string | undefined {
    if (params.get('userhash')?.toLowerCase() === 'true') return undefined;
    const plain = params.get('username');
    const extended = params.get('username*');
    if (plain !== undefined && extended !== undefined) return undefined;
    return extended !== undefined ? decodeExtValue(extended) : plain;
  }

  private ha1(hash: DigestHash, username: string, realm: string, password: string): string {
    return this.lastA1[hash].of(username, realm, password, ':');
  }

  private ha2(hash: DigestHash, method: string, uri: string): string {
    return this.lastA2[hash].of(method, uri, '', '');
  }
}

/** H(a ":" b [":" c]) of the last input, recomputed only when an input part changes. */
class LastHash {
  private parts: [string, string, string] | undefined;
  private value = '';

  constructor(private readonly hash: DigestHash) {}

  of(a: string, b: string, c: string, separator: string): string {
    const parts = this.parts;
    if (!parts || parts[0] !== a || parts[1] !== b || parts[2] !== c) {
      this.parts = [a, b, c];
      this.value = digestHex(this.hash, `${a}:${b}${separator}${c}`);
    }
    return this.value;
  }
}
