// Double assertions through `unknown` tell the compiler nothing it can check: src/ keeps at most
// MAX_DOUBLE_CASTS of them, each with a comment saying why no type guard, narrower generic or
// typed helper does (docs/architecture.md#type-assertions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../helpers/environment.js';

const SRC = join(repoRoot, 'src');
const MAX_DOUBLE_CASTS = 4;
const DOUBLE_CAST = /\bas\s+unknown\s+as\b/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

interface Found {
  file: string;
  line: number;
  commented: boolean;
}

/** A comment on the assertion's line or ending on the line just above it. */
function hasComment(lines: readonly string[], index: number): boolean {
  if (lines[index]!.includes('//')) return true;
  const above = (lines[index - 1] ?? '').trim();
  return above.startsWith('//') || above.endsWith('*/') || above.startsWith('*');
}

function doubleCasts(source: string, file: string): Found[] {
  const lines = source.split('\n');
  const found: Found[] = [];
  lines.forEach((text, index) => {
    const count = text.match(DOUBLE_CAST)?.length ?? 0;
    for (let i = 0; i < count; i += 1)
      found.push({ file, line: index + 1, commented: hasComment(lines, index) });
  });
  return found;
}

const all = sourceFiles(SRC).flatMap((path) =>
  doubleCasts(readFileSync(path, 'utf8'), relative(repoRoot, path)),
);
const where = (list: readonly Found[]) => list.map((f) => `${f.file}:${f.line}`).join(', ');

test(`src/ has at most ${MAX_DOUBLE_CASTS} 'as unknown as'`, () => {
  assert.ok(all.length <= MAX_DOUBLE_CASTS, `${all.length} found: ${where(all)}`);
});

test("every 'as unknown as' in src/ carries a comment saying why", () => {
  const uncommented = all.filter((found) => !found.commented);
  assert.deepEqual(uncommented, [], `without a comment: ${where(uncommented)}`);
});

test('the scan finds an assertion and tells a commented one from a bare one', () => {
  const source = [
    'const a = b as unknown as C;',
    '// The library types the value wrongly.',
    'const d = e as  unknown  as F;',
    'const g = h as unknown as I; // same here',
    'const j = k as L;',
  ].join('\n');
  assert.deepEqual(
    doubleCasts(source, 'x.ts').map((found) => [found.line, found.commented]),
    [
      [1, false],
      [3, true],
      [4, true],
    ],
  );
});
