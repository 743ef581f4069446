import type { TemplateValue } from './template-variables.js';

/**
 * The MQTT payload template (docs/architecture.md#mqtt-template): text with `${name}` placeholders.
 *
 * - A placeholder is `${` + name + `}` where name is one or more of `A-Z a-z 0-9 _ . [ ] -`
 *   (`1_8_0`, `sys.id`, `vol[0].cumulative`, `wifi.ssid`). Anything else after `${` (a space, a
 *   brace, a non-ASCII letter, the end of the text) means the `$` is plain text.
 * - Numbers render as JSON numbers; a non-finite number renders as `null` (JSON has no NaN).
 * - `null` (a numeric variable the meter did not send) renders as `null`.
 * - Strings are inserted verbatim: the template supplies the quotes (`"${sys.id}"`).
 * - Names that are not variables stay in the output exactly as written.
 */

type Segment = { text: string } | { name: string; source: string };

export interface CompiledTemplate {
  readonly source: string;
  /** Variable names the template refers to, in order of first use. */
  readonly names: readonly string[];
  render(variables: ReadonlyMap<string, TemplateValue>): string;
}

const NAME_CHAR = /[A-Za-z0-9_.[\]-]/;

function parseSegments(source: string): Segment[] {
  const segments: Segment[] = [];
  let literalStart = 0;
  let index = source.indexOf('${');
  while (index !== -1) {
    let end = index + 2;
    while (end < source.length && NAME_CHAR.test(source[end]!)) end += 1;
    if (end > index + 2 && source[end] === '}') {
      if (index > literalStart) segments.push({ text: source.slice(literalStart, index) });
      segments.push({ name: source.slice(index + 2, end), source: source.slice(index, end + 1) });
      literalStart = end + 1;
      index = source.indexOf('${', literalStart);
    } else {
      index = source.indexOf('${', index + 1);
    }
  }
  if (literalStart < source.length) segments.push({ text: source.slice(literalStart) });
  return segments;
}

/** Renders one variable value by the rules above. */
export function formatTemplateValue(value: TemplateValue): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  return value;
}

/** Parses the template once; `render` is then a single pass over the segments. */
export function compileTemplate(source: string): CompiledTemplate {
  const segments = parseSegments(source);
  const names = [...new Set(segments.flatMap((segment) => ('name' in segment ? [segment.name] : [])))];
  return {
    source,
    names,
    render(variables) {
      let out = '';
      for (const segment of segments) {
        if ('text' in segment) {
          out += segment.text;
          continue;
        }
        const value = variables.get(segment.name);
        out +=
          value === undefined && !variables.has(segment.name)
            ? segment.source
            : formatTemplateValue(value ?? null);
      }
      return out;
    },
  };
}

/** One-off render (compiles and renders). */
export function renderTemplate(source: string, variables: ReadonlyMap<string, TemplateValue>): string {
  return compileTemplate(source).render(variables);
}
