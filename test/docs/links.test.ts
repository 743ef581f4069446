// Every relative link and #anchor in README.md and docs/**/*.md resolves: the file exists, and an
// anchor names a heading of that file (GitHub's slugs: lower case, punctuation dropped, spaces to
// hyphens, a repeated heading gets -1, -2) or an explicit HTML id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from '../helpers/environment.js';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return markdownFiles(path);
      return name.endsWith('.md') ? [path] : [];
    });
}

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const code = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of code.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = slugOf(match[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** Links of a text: [text](target) and ![alt](target), the target without a title. */
function linksOf(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

const files = [join(repoRoot, 'README.md'), ...markdownFiles(join(repoRoot, 'docs'))];

/** Broken links of a set of files, as `file: target (why)`. */
function brokenLinks(paths: string[]): string[] {
  const problems: string[] = [];
  for (const file of paths) {
    const text = readFileSync(file, 'utf8');
    for (const target of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: are not checked here
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const resolved = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
      const where = `${relative(repoRoot, file)}: ${target}`;
      if (!existsSync(resolved)) {
        problems.push(`${where} (no file ${relative(repoRoot, resolved)})`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!resolved.endsWith('.md')) continue;
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
        problems.push(`${where} (no heading #${anchor})`);
    }
  }
  return problems;
}

test('every relative link and anchor in README.md and docs/ resolves', () => {
  assert.ok(files.length >= 10, `only ${files.length} markdown files found`);
  assert.deepEqual(brokenLinks(files), []);
});

test('the link check finds a missing file and a missing heading', () => {
  assert.deepEqual(slugOf('Node.js on Raspberry Pi OS'), 'nodejs-on-raspberry-pi-os');
  assert.deepEqual(
    slugOf('Worked example: Norway, price steps and `keep_step`'),
    'worked-example-norway-price-steps-and-keep_step',
  );
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  assert.ok(
    linksOf(readme).some((target) => target.startsWith('docs/guide/')),
    'README links to the guide',
  );
  const anchors = anchorsOf(readFileSync(join(repoRoot, 'docs', 'guide', 'operations.md'), 'utf8'));
  assert.ok(anchors.has('the-service-on-a-raspberry-pi'));
  assert.ok(!anchors.has('no-such-heading'));
});

test('README.md starts with the set-up and stays short', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
  const firstSection = /^## (.+)$/m.exec(readme)?.[1] ?? '';
  assert.match(firstSection, /fresh Raspberry Pi or Debian/);
  for (const step of ['npm ci && npm start', 'npm test', 'http://<address>:8080/'])
    assert.ok(readme.indexOf(step) < readme.indexOf('## Install on a Raspberry Pi'), step);
});
