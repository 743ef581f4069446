import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { basicChallenge, basicPassword, samePassword } from './auth-basic.js';
import { digestChallenges, DigestVerifier } from './auth-digest.js';
import { parseAuthParams } from '../digest/auth-params.js';
import { DEFAULT_THROTTLE, FailureThrottle, type ThrottleOptions } from './auth-throttle.js';
import { NonceCounters, NonceIssuer } from './digest-nonce.js';
import { HttpError } from './errors.js';

export interface AuthOptions {
  now: () => number;
  /** Digest nonces older than this answer 401 with stale=true (RFC 7616 §3.3). */
  nonceLifetimeMs: number;
  throttle?: ThrottleOptions;
}

export type AuthResult = { ok: true } | { ok: false; error: HttpError; delayMs: number };

/**
 * Authentication of every request while system.protection is on and a password is set
 * (docs/architecture.md#auth): HTTP Digest (RFC 7616) or Basic (RFC 7617), user name ignored. A 401 carries
 * one Digest challenge per algorithm plus a Basic challenge and the error body.
 */
export class Authenticator {
  readonly throttle: FailureThrottle;
  private readonly issuer = new NonceIssuer();
  private readonly digest: DigestVerifier;
  /** RFC 7616 §3.3 opaque: echoed by clients, constant for this process. */
  private readonly opaque = randomBytes(12).toString('base64url');

  constructor(private readonly options: AuthOptions) {
    this.throttle = new FailureThrottle(options.now, options.throttle ?? DEFAULT_THROTTLE);
    this.digest = new DigestVerifier(this.issuer, new NonceCounters(), options.nonceLifetimeMs);
  }

  /**
   * Protection on fails closed: with no stored password (secrets file missing, empty or corrupt)
   * no credentials can match, so every request is refused; an empty Basic password never passes.
   */
  check(request: IncomingMessage, realm: string, password: string): AuthResult {
    if (password === '') {
      return this.refuse(
        realm,
        'system.protection is on but no password is stored; set one (e.g. METER_GATEWAY_SYSTEM_PASSWORD) to use the API',
        false,
        0,
      );
    }
    const header = request.headers.authorization;
    const address = request.socket.remoteAddress ?? '';
    const space = header === undefined ? -1 : header.indexOf(' ');
    const scheme =
      header === undefined ? '' : header.slice(0, space < 0 ? header.length : space).toLowerCase();
    if (header === undefined || (scheme !== 'basic' && scheme !== 'digest')) {
      return this.refuse(realm, 'authentication required', false, 0);
    }
    if (scheme === 'basic') {
      const given = basicPassword(header);
      if (given !== undefined && samePassword(given, password)) return this.accept(address);
      return this.refuse(realm, 'invalid credentials', false, this.throttle.fail(address));
    }
    const params = parseAuthParams(header.slice(space + 1));
    const verdict = params
      ? this.digest.verify(params, {
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          realm,
          password,
          now: this.options.now(),
        })
      : 'invalid';
    switch (verdict) {
      case 'ok':
        return this.accept(address);
      case 'stale':
        return this.refuse(realm, 'nonce expired; repeat the request with the new nonce', true, 0);
      case 'replay':
        return this.refuse(
          realm,
          'nonce count already used (replayed request)',
          false,
          this.throttle.fail(address),
        );
      case 'invalid':
        return this.refuse(realm, 'invalid credentials', false, this.throttle.fail(address));
    }
  }

  private accept(address: string): AuthResult {
    this.throttle.succeed(address);
    return { ok: true };
  }

  private refuse(realm: string, message: string, stale: boolean, delayMs: number): AuthResult {
    const nonce = this.issuer.issue(this.options.now());
    const headers: Record<string, string | string[]> = {
      'WWW-Authenticate': [...digestChallenges(realm, nonce, this.opaque, stale), basicChallenge(realm)],
    };
    if (delayMs > 0) headers['Retry-After'] = String(Math.ceil(delayMs / 1000));
    return { ok: false, error: new HttpError(401, 'unauthorized', message, {}, headers), delayMs };
  }
}
