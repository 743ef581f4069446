import * as crypto from 'node:crypto';

/**
 * HTTP Digest (RFC 7616) as both sides compute it: the HTTP server checking a client's response
 * and the remote meter transport answering a gateway's challenge use these same functions:
 *   A1 = username ":" realm ":" password          -sess: H(A1) ":" nonce ":" cnonce   (§3.4.2)
 *   A2 = method ":" request-uri                                                        (§3.4.3)
 *   response = H( H(A1) ":" nonce ":" nc ":" cnonce ":" qop ":" H(A2) )                 (§3.4.1)
 *   without qop (RFC 2069 compatibility): H( H(A1) ":" nonce ":" H(A2) )
 */
export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
export type DigestHash = 'md5' | 'sha256';

export interface DigestAlgorithmFacts {
  name: DigestAlgorithm;
  hash: DigestHash;
  session: boolean;
}

const ALGORITHMS: readonly DigestAlgorithmFacts[] = [
  { name: 'MD5', hash: 'md5', session: false },
  { name: 'MD5-sess', hash: 'md5', session: true },
  { name: 'SHA-256', hash: 'sha256', session: false },
  { name: 'SHA-256-sess', hash: 'sha256', session: true },
];

/** The algorithm a challenge or credentials name (case-insensitive; absent = MD5, §3.3). */
export function digestAlgorithm(name = 'MD5'): DigestAlgorithmFacts | undefined {
  const wanted = name.toUpperCase();
  return ALGORITHMS.find((facts) => facts.name.toUpperCase() === wanted);
}

/** One-shot crypto.hash (Node >= 20.12) where present: no Hash object per call. */
const oneShot: ((algorithm: string, data: string, encoding: 'hex') => string) | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** H(text) as lower-case hex (§3.4: the hash of a UTF-8 string). */
export function digestHex(hash: DigestHash, text: string): string {
  return oneShot ? oneShot(hash, text, 'hex') : crypto.createHash(hash).update(text, 'utf8').digest('hex');
}

/** The session key of a -sess algorithm from H(A1) (§3.4.2). */
function sessionKey(hash: DigestHash, ha1: string, nonce: string, cnonce: string): string {
  return digestHex(hash, `${ha1}:${nonce}:${cnonce}`);
}

/** The inputs of one response value besides the algorithm. */
export interface DigestResponseInput {
  /** H(username ":" realm ":" password), before any -sess derivation. */
  ha1: string;
  /** H(method ":" request-uri). */
  ha2: string;
  nonce: string;
  cnonce: string;
  /** The nonce count as 8 hex digits with qop=auth; undefined: no qop, the RFC 2069 form. */
  nc: string | undefined;
}

/** The response value (§3.4.1), with the session key of a -sess algorithm (§3.4.2). */
export function digestResponseValue(algorithm: DigestAlgorithmFacts, input: DigestResponseInput): string {
  const { hash } = algorithm;
  const { ha2, nonce, cnonce, nc } = input;
  const ha1 = algorithm.session ? sessionKey(hash, input.ha1, nonce, cnonce) : input.ha1;
  return nc === undefined
    ? digestHex(hash, `${ha1}:${nonce}:${ha2}`)
    : digestHex(hash, `${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
}
