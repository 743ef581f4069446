import { envNameOf, LEAVES, stateFileOf } from './paths.js';

const BEGIN =
  '<!-- config-reference:begin (generated from src/config/schema.ts by `npm run config-reference`) -->';
const END = '<!-- config-reference:end -->';

function describeRule(schema: Record<string, unknown>): string {
  switch (schema.format) {
    case 'bounded-int':
      return `integer ${String(schema.min)}..${String(schema.max)}`;
    case 'bounded-number':
      return `number ${String(schema.min)}..${String(schema.max)}${schema.step ? `, step ${String(schema.step)}` : ''}`;
    case 'bool':
      return 'boolean';
    case 'one-of':
      return (schema.values as string[]).join(' \\| ');
    case 'modbus-layout':
      return 'register sets or null';
    default: {
      const max = schema.maxLength === undefined ? '' : `, max ${String(schema.maxLength)}`;
      return `string${max}`;
    }
  }
}

/** The configuration reference table of the README, one row per schema leaf. */
export function configReferenceMarkdown(): string {
  const rows = [...LEAVES.values()].map((leaf) => {
    const def = leaf.secret ? '(secret)' : `\`${JSON.stringify(leaf.default)}\``;
    const where = stateFileOf(leaf.path) ? 'API' : 'daemon';
    const doc = leaf.doc.replaceAll('|', '\\|');
    return `| \`${leaf.path}\` | ${describeRule(leaf.schema)} | ${def.replaceAll('|', '\\|')} | ${where} | \`${envNameOf(leaf.path)}\` | ${doc} |`;
  });
  return [
    BEGIN,
    '| key | rule | default | set by | environment | meaning |',
    '|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

/** Replaces the generated block inside a README text. */
export function withConfigReference(readme: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < 0) throw new Error('README has no config-reference markers');
  return readme.slice(0, start) + configReferenceMarkdown() + readme.slice(end + END.length);
}
