import { BACKSLASH, COMMA, EQUALS, QUOTE, SPACE, TAB } from '../ascii-codes.js';

/**
 * auth-param lists of the Authorization header (RFC 9110 §11.2 and §11.4) and of WWW-Authenticate
 * challenges (§11.6.1), one parser for the server's credentials and the client's challenges:
 *   credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]   (a challenge has the same form)
 *   auth-param  = token BWS "=" BWS ( token / quoted-string )
 * quoted-string per RFC 9110 §5.6.4 (backslash escapes a single octet).
 */

/** tchar (RFC 9110 §5.6.2) by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TCHAR[c.charCodeAt(0)] = 1;

function isToken(code: number): boolean {
  return code < 128 && TCHAR[code] === 1;
}

/** Index of the quote that ends a quoted-string starting at `from` (after its opening quote), or -1. */
function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  // A quote preceded by an odd number of backslashes is escaped (quoted-pair, RFC 9110 §5.6.4).
  while (quote > 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

function skipBlanks(text: string, i: number): number {
  while (i < text.length && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
  return i;
}

/**
 * Walks a comma-separated list of auth-params, calling `param` with each name (lower-cased) and
 * unescaped value. A token that is not followed by "=" starts a new challenge and goes to `scheme`
 * (WWW-Authenticate lists, RFC 9110 §11.6.1); where `scheme` is absent it makes the list malformed.
 * Stops at the first malformed element or when `param` refuses a value; returns false then.
 */
function scanAuthList(
  text: string,
  param: (name: string, value: string) => boolean,
  scheme?: (name: string) => void,
): boolean {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === SPACE || code === TAB || code === COMMA) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < length && isToken(text.charCodeAt(i))) i++;
    if (i === nameStart) return false;
    const name = text.slice(nameStart, i).toLowerCase();
    i = skipBlanks(text, i);
    if (text.charCodeAt(i) !== EQUALS) {
      if (!scheme) return false;
      scheme(name);
      continue;
    }
    i++;
    i = skipBlanks(text, i);
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return false;
      value = text.slice(i + 1, end);
      if (value.includes('\\')) value = value.replace(/\\(.)/gs, '$1');
      i = end + 1;
    } else {
      const valueStart = i;
      while (i < length && isToken(text.charCodeAt(i))) i++;
      if (i === valueStart) return false;
      value = text.slice(valueStart, i);
    }
    if (!param(name, value)) return false;
    i = skipBlanks(text, i);
    if (i < length && text.charCodeAt(i) !== COMMA) return false;
  }
  return true;
}

/**
 * Parameters of a credentials string after its scheme (the Authorization header, RFC 9110 §11.4),
 * names lower-cased; undefined when malformed or when a name repeats. Empty list elements are
 * allowed (RFC 9110 §5.6.1).
 */
export function parseAuthParams(text: string): Map<string, string> | undefined {
  const params = new Map<string, string>();
  const wellFormed = scanAuthList(text, (name, value) => {
    if (params.has(name)) return false;
    params.set(name, value);
    return true;
  });
  return wellFormed ? params : undefined;
}

/** One challenge of a WWW-Authenticate header: scheme (lower-cased) and its auth-params. */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * The challenges of a WWW-Authenticate value (RFC 9110 §11.6.1: several may be joined by commas,
 * as a server offering Digest with several algorithms does). Lenient, as a client must be: a
 * repeated parameter keeps its last value, parameters before any scheme are dropped, and parsing
 * stops at the first malformed element, keeping the challenges read so far.
 */
export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  scanAuthList(
    header,
    (name, value) => {
      const current = challenges[challenges.length - 1];
      // A server names the parameters: defined as own properties, so `__proto__` is just a name.
      if (current)
        Object.defineProperty(current.params, name, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      return true;
    },
    (scheme) => challenges.push({ scheme, params: {} }),
  );
  return challenges;
}

/** A quoted-string with `"` and `\` escaped (RFC 9110 §5.6.4). */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * An RFC 8187 ext-value (`UTF-8''%C2%A3`), the form of `username*` in RFC 7616 §3.4.4; undefined
 * when it is not UTF-8 or not validly percent-encoded.
 */
export function decodeExtValue(value: string): string | undefined {
  const match = /^UTF-8'[^']*'(.*)$/i.exec(value);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}
