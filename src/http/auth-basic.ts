import { timingSafeEqual } from 'node:crypto';
import { quoted } from '../digest/auth-params.js';

/**
 * HTTP Basic authentication (RFC 7617). The user name is ignored (docs/architecture.md#auth: clients send an
 * empty one); only the password counts.
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

/** Password slot of the constant-time comparison (system.password: at most 31 characters). */
const SLOT_BYTES = 256;
const givenSlot = Buffer.alloc(SLOT_BYTES);
const expectedSlot = Buffer.alloc(SLOT_BYTES);

/**
 * Constant-time password comparison: both passwords are written into zero-filled slots of one
 * fixed size and compared whole (CRYPTO_memcmp), then their lengths; the time depends on neither
 * the content nor the length of the stored password. A given password too long for the slot is
 * refused at once (its length is the client's own, not a secret).
 */
export function samePassword(given: string, expected: string): boolean {
  const givenLength = Buffer.byteLength(given, 'utf8');
  const expectedLength = Buffer.byteLength(expected, 'utf8');
  if (givenLength > SLOT_BYTES || expectedLength > SLOT_BYTES) return false;
  givenSlot.fill(0).write(given, 'utf8');
  expectedSlot.fill(0).write(expected, 'utf8');
  const sameBytes = timingSafeEqual(givenSlot, expectedSlot);
  return sameBytes && givenLength === expectedLength;
}

/** The Basic challenge (RFC 7617 §2: realm, charset). */
export function basicChallenge(realm: string): string {
  return `Basic realm=${quoted(realm)}, charset="UTF-8"`;
}
