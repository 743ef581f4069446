import { createHash, timingSafeEqual } from 'node:crypto';
import { quoted } from './auth-params.js';

/**
 * HTTP Basic authentication (RFC 7617). The user name is ignored (DESIGN §4: clients send an empty
 * one); only the password counts.
 */

/** The password of a `Basic <base64(user:password)>` credential, or undefined when malformed. */
export function basicPassword(authorization: string): string | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(authorization);
  if (!match) return undefined;
  // RFC 7617 §2.1: user-pass is UTF-8 when the challenge announced charset="UTF-8".
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * Constant-time password comparison: both sides are hashed first so neither the content nor the
 * length of the stored password shows in the timing.
 */
export function samePassword(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The Basic challenge (RFC 7617 §2: realm, charset). */
export function basicChallenge(realm: string): string {
  return `Basic realm=${quoted(realm)}, charset="UTF-8"`;
}
