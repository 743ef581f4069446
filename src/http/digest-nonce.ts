import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Server nonces of HTTP Digest (RFC 7616 §3.3, §5.4): stateless and signed, so the server needs no
 * table of issued nonces. Layout before base64url: issue time (8 bytes, ms, big-endian), 8 random
 * bytes, then the first 16 bytes of HMAC-SHA-256 over both with a per-process secret. A nonce
 * from another process (after a restart) or with a broken signature never verifies.
 */
const TIME_BYTES = 8;
const RANDOM_BYTES = 8;
const MAC_BYTES = 16;
const NONCE_BYTES = TIME_BYTES + RANDOM_BYTES + MAC_BYTES;

export class NonceIssuer {
  private readonly secret: Buffer;

  constructor(secret: Buffer = randomBytes(32)) {
    this.secret = secret;
  }

  issue(now: number): string {
    const nonce = Buffer.alloc(NONCE_BYTES);
    nonce.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(now))), 0);
    randomBytes(RANDOM_BYTES).copy(nonce, TIME_BYTES);
    this.mac(nonce).copy(nonce, TIME_BYTES + RANDOM_BYTES);
    return nonce.toString('base64url');
  }

  /** Issue time (ms) of a nonce this issuer signed, or undefined. */
  issuedAt(nonce: string): number | undefined {
    if (nonce.length !== Math.ceil((NONCE_BYTES * 4) / 3) || !/^[A-Za-z0-9_-]+$/.test(nonce))
      return undefined;
    const bytes = Buffer.from(nonce, 'base64url');
    if (bytes.length !== NONCE_BYTES) return undefined;
    const given = bytes.subarray(TIME_BYTES + RANDOM_BYTES);
    if (!timingSafeEqual(given, this.mac(bytes))) return undefined;
    return Number(bytes.readBigUInt64BE(0));
  }

  private mac(nonce: Buffer): Buffer {
    return createHmac('sha256', this.secret)
      .update(nonce.subarray(0, TIME_BYTES + RANDOM_BYTES))
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

/**
 * Accepted nonce counts of one nonce: the highest, and a ring bitmap of the `window` counts up to
 * it (bit nc % window set = count nc was used).
 */
interface CountWindow {
  issuedAt: number;
  highest: number;
  used: Uint8Array;
}

/**
 * fresh: first use of this count. replay: this count was used before. outside: older than the
 * window, so whether it was used is no longer known. forgotten: the nonce's record was dropped.
 */
export type CountVerdict = 'fresh' | 'replay' | 'outside' | 'forgotten';

/**
 * Replay protection by nonce count (RFC 7616 §3.4: "nc ... allows the server to detect request
 * replays"). Every nc value is accepted at most once per nonce. Clients with parallel connections
 * send counts out of order, so a count below the highest is accepted once while it lies within
 * `window`. Anything the table can no longer vouch for (a count below the window, a nonce dropped
 * from the bounded table, and every nonce issued no later than a dropped one) is not accepted;
 * the caller sends a fresh nonce (stale=true) instead of risking a replay.
 */
export class NonceCounters {
  private readonly nonces = new Map<string, CountWindow>();
  private forgottenUpTo = -1;

  constructor(
    private readonly capacity = 1024,
    private readonly window = 4096,
  ) {}

  get size(): number {
    return this.nonces.size;
  }

  /** Issue time of a nonce already in use (its signature was checked when it was first used). */
  issuedAtOf(nonce: string): number | undefined {
    return this.nonces.get(nonce)?.issuedAt;
  }

  /** Records count `nc` (>= 1) of `nonce`. */
  use(nonce: string, issuedAt: number, nc: number): CountVerdict {
    let counts = this.nonces.get(nonce);
    if (!counts) {
      if (issuedAt <= this.forgottenUpTo) return 'forgotten';
      counts = { issuedAt, highest: 0, used: new Uint8Array(this.window / 8) };
      this.remember(nonce, counts);
    }
    if (nc > counts.highest) {
      // The slots of the counts between the old and the new highest are reused: clear them.
      if (nc - counts.highest >= this.window) counts.used.fill(0);
      else for (let count = counts.highest + 1; count <= nc; count++) this.mark(counts, count, false);
      counts.highest = nc;
      this.mark(counts, nc, true);
      return 'fresh';
    }
    if (nc <= counts.highest - this.window || nc < 1) return 'outside';
    if (this.marked(counts, nc)) return 'replay';
    this.mark(counts, nc, true);
    return 'fresh';
  }

  private marked(counts: CountWindow, nc: number): boolean {
    const slot = nc % this.window;
    return (counts.used[slot >> 3]! & (1 << (slot & 7))) !== 0;
  }

  private mark(counts: CountWindow, nc: number, used: boolean): void {
    const slot = nc % this.window;
    if (used) counts.used[slot >> 3]! |= 1 << (slot & 7);
    else counts.used[slot >> 3]! &= ~(1 << (slot & 7));
  }

  private remember(nonce: string, counts: CountWindow): void {
    if (this.nonces.size >= this.capacity) {
      const [oldest, oldestCounts] = this.nonces.entries().next().value as [string, CountWindow];
      this.nonces.delete(oldest);
      this.forgottenUpTo = Math.max(this.forgottenUpTo, oldestCounts.issuedAt);
    }
    this.nonces.set(nonce, counts);
  }
}
