/**
 * Virtual meter expressions (docs/architecture.md#several-meters): a sum of terms, each a meter id
 * with an optional constant factor, joined by `+` and `-`:
 *   expression := ['-'] term (('+' | '-') term)*
 *   term       := id | number '*' id | id '*' number
 * e.g. `main - ev`, `main + pv`, `2 * pv - 0.5 * battery`. Pure.
 */
export interface ExpressionTerm {
  id: string;
  factor: number;
}

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

type Token = { kind: 'id'; text: string } | { kind: 'number'; value: number } | { kind: 'op'; text: string };

const TOKEN = /\s*(?:([a-z][a-z0-9_]*)|(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([-+*]))/iy;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (text.slice(TOKEN.lastIndex).trim() === '') break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new ExpressionError(`unexpected character at position ${at + 1}`);
    if (match[1] !== undefined) tokens.push({ kind: 'id', text: match[1] });
    else if (match[2] !== undefined) {
      const value = Number(match[2]);
      // `1e999` parses to Infinity: a factor that is no finite number would make every sum null.
      if (!Number.isFinite(value))
        throw new ExpressionError(`the constant ${match[2]} is not a finite number`);
      tokens.push({ kind: 'number', value });
    } else tokens.push({ kind: 'op', text: match[3]! });
  }
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): ExpressionTerm[] {
    if (this.tokens.length === 0) throw new ExpressionError('is empty');
    const terms: ExpressionTerm[] = [];
    let sign = this.takeOp('-') ? -1 : 1;
    for (;;) {
      const term = this.term();
      terms.push({ id: term.id, factor: sign * term.factor });
      if (this.at >= this.tokens.length) return terms;
      if (this.takeOp('+')) sign = 1;
      else if (this.takeOp('-')) sign = -1;
      else throw new ExpressionError(`expected + or - after ${term.id}`);
    }
  }

  private term(): ExpressionTerm {
    const first = this.tokens[this.at++];
    if (first?.kind === 'number') {
      if (!this.takeOp('*'))
        throw new ExpressionError(`a constant must be a factor: ${first.value} * <meter>`);
      const id = this.tokens[this.at++];
      if (id?.kind !== 'id') throw new ExpressionError(`expected a meter id after ${first.value} *`);
      return { id: id.text, factor: first.value };
    }
    if (first?.kind !== 'id') throw new ExpressionError('expected a meter id');
    if (!this.takeOp('*')) return { id: first.text, factor: 1 };
    const factor = this.tokens[this.at++];
    if (factor?.kind !== 'number') throw new ExpressionError(`expected a number after ${first.text} *`);
    return { id: first.text, factor: factor.value };
  }

  private takeOp(op: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind !== 'op' || token.text !== op) return false;
    this.at += 1;
    return true;
  }
}

/** The terms of an expression; a meter named twice has its factors added. Throws ExpressionError. */
export function parseExpression(text: string): ExpressionTerm[] {
  const terms = new Parser(tokenize(text)).parse();
  const merged = new Map<string, number>();
  for (const term of terms) merged.set(term.id, (merged.get(term.id) ?? 0) + term.factor);
  for (const [id, factor] of merged)
    if (!Number.isFinite(factor))
      throw new ExpressionError(`the factors of ${id} add up to no finite number`);
  return [...merged].map(([id, factor]) => ({ id, factor }));
}
