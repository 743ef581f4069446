/**
 * Deepest nesting of arrays and objects a JSON request body may have
 * (docs/architecture.md#hostile-input). No body of the API nests beyond 8 levels; deeper bodies are
 * refused while they arrive, so no route, validator or error path ever walks (or echoes) an arbitrarily
 * deep value.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Follows the nesting depth of JSON text fed in chunks of UTF-8 bytes: one pass, no recursion, state
 * kept across chunk boundaries. Brackets inside strings are skipped (RFC 8259 §7: `"` ends a string
 * unless escaped by a backslash); every structural character is ASCII, and no byte of a multi-byte
 * UTF-8 sequence is (RFC 3629 §3), so bytes need no decoding. Malformed text is left to JSON.parse.
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly limit: number = MAX_JSON_DEPTH) {}

  /** Feeds the next bytes; true once the nesting went deeper than the limit. */
  exceeded(chunk: Uint8Array): boolean {
    for (const byte of chunk) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) this.inString = true;
      else if (OPENERS.has(byte)) {
        if (++this.depth > this.limit) return true;
      } else if (CLOSERS.has(byte)) this.depth--;
    }
    return false;
  }
}
