import { SourceError } from './source-error.js';

/** The closest known name to a mistyped one (at most two letters off), for the refusal's hint. */
function closest(name: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, index) => index);
    for (let i = 1; i <= a.length; i += 1) {
      const next = [i];
      for (let j = 1; j <= b.length; j += 1)
        next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length]!;
  };
  const scored = known.map((candidate) => [candidate, distance(name, candidate)] as const);
  const best = scored.sort((a, b) => a[1] - b[1])[0];
  return best && best[1] <= 2 ? best[0] : undefined;
}

/**
 * A query parameter the source does not take is refused, naming it: a typo (`?protocl=dsmr`)
 * would otherwise be ignored and the default used without a word.
 */
export function onlyKnownParams(source: string, params: URLSearchParams, known: readonly string[]): void {
  for (const name of params.keys()) {
    if (known.includes(name.toLowerCase())) continue;
    const hint = closest(name.toLowerCase(), known);
    throw new SourceError(
      source,
      `unknown parameter '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}; this source takes ${known.join(', ')}`,
    );
  }
}
