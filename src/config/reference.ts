import { formatNamed, type Limits } from './formats.js';
import { envNameOf, LEAVES, stateFileOf } from './paths.js';

const BEGIN =
  '<!-- config-reference:begin (generated from src/config/schema.ts by `npm run config-reference`) -->';
const END = '<!-- config-reference:end -->';

/** The rule of a leaf as its format words it; every format must be registered (wiring) first. */
function describeRule(path: string, format: string, item: Limits): string {
  const described = formatNamed(format)?.describe(item);
  if (described === undefined) throw new Error(`${path}: config format ${format} is not registered`);
  return described;
}

/** The configuration reference table (docs/guide/configuration-reference.md), one row per schema leaf. */
export function configReferenceMarkdown(): string {
  const rows = [...LEAVES.values()].map((leaf) => {
    const def = leaf.secret ? '(secret)' : `\`${JSON.stringify(leaf.default)}\``;
    const where = stateFileOf(leaf.path) ? 'API' : 'daemon';
    const doc = leaf.doc.replaceAll('|', '\\|');
    return `| \`${leaf.path}\` | ${describeRule(leaf.path, leaf.format, leaf.schema as Limits)} | ${def.replaceAll('|', '\\|')} | ${where} | \`${envNameOf(leaf.path)}\` | ${doc} |`;
  });
  return [
    BEGIN,
    '| key | rule | default | set by | environment | meaning |',
    '|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

/** Replaces the generated block inside a markdown text. */
export function withConfigReference(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) throw new Error('the text has no config-reference markers');
  return text.slice(0, start) + configReferenceMarkdown() + text.slice(end + END.length);
}
