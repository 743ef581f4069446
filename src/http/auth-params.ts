/**
 * auth-param lists of the Authorization header (RFC 9110 §11.2 and §11.4):
 *   credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param  = token BWS "=" BWS ( token / quoted-string )
 * quoted-string per RFC 9110 §5.6.4 (backslash escapes a single octet).
 */

/** tchar (RFC 9110 §5.6.2) by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TCHAR[c.charCodeAt(0)] = 1;

const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

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
 * Parameters of a credentials string after its scheme, names lower-cased; undefined when
 * malformed or when a name repeats. Empty list elements are allowed (RFC 9110 §5.6.1).
 */
export function parseAuthParams(text: string): Map<string, string> | undefined {
  const params = new Map<string, string>();
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
    if (i === nameStart) return undefined;
    const name = text.slice(nameStart, i).toLowerCase();
    i = skipBlanks(text, i);
    if (text.charCodeAt(i) !== EQUALS) return undefined;
    i++;
    i = skipBlanks(text, i);
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return undefined;
      value = text.slice(i + 1, end);
      if (value.includes('\\')) value = value.replace(/\\(.)/gs, '$1');
      i = end + 1;
    } else {
      const valueStart = i;
      while (i < length && isToken(text.charCodeAt(i))) i++;
      if (i === valueStart) return undefined;
      value = text.slice(valueStart, i);
    }
    if (params.has(name)) return undefined;
    params.set(name, value);
    i = skipBlanks(text, i);
    if (i < length && text.charCodeAt(i) !== COMMA) return undefined;
  }
  return params;
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
