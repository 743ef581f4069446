// A page shard (scripts/test-shard.mjs, docs/architecture.md#test-tiers) runs several page files in
// one process with one browser: each file still gets what a browser of its own gave it. Two small
// page files run in a shard here, as a child process: the second gets the first one's browser, none
// of the contexts the first left open, and its own time zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requireChromium } from '../helpers/browser.js';
import { repoRoot } from '../helpers/environment.js';
import { tempDir } from '../helpers/temp-dir.js';

const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
const helper = pathToFileURL(
  fromSource
    ? join(repoRoot, 'test', 'helpers', 'file-browser.ts')
    : join(repoRoot, 'dist', 'test', 'helpers', 'file-browser.js'),
).href;

/** The time zone a page of `context` sees. */
const pageZone = `async function pageZone(context) {
  const page = await context.newPage();
  await page.setContent('<p>zone</p>');
  return page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
}`;

const FIRST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserContext } from ${JSON.stringify(helper)};
${pageZone}
test('the first file: the shard started in UTC, a context left open', async () => {
  const { context } = await browserContext();
  globalThis.firstBrowser = context.browser();
  assert.equal(await pageZone(context), 'UTC');
});
`;

const SECOND = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserContext } from ${JSON.stringify(helper)};
${pageZone}
process.env.TZ = 'Pacific/Auckland';
test('the second file: the same browser, none of the first file\\'s contexts, its own time zone', async () => {
  const browser = await browserContext();
  try {
    assert.equal(browser.context.browser(), globalThis.firstBrowser, 'one browser for the shard');
    assert.equal(browser.context.browser().contexts().length, 1, 'the first file\\'s context was closed');
    assert.equal(await pageZone(browser.context), 'Pacific/Auckland');
  } finally {
    await browser.close();
  }
});
`;

test(
  'page files in one shard share a browser, not its contexts or time zone',
  { timeout: 120_000 },
  async (t) => {
    if (!requireChromium(t)) return;
    const dir = tempDir('mg-page-shard-', t);
    writeFileSync(join(dir, 'first.test.mjs'), FIRST);
    writeFileSync(join(dir, 'second.test.mjs'), SECOND);
    const runner = pathToFileURL(join(repoRoot, 'scripts', 'test-shard.mjs')).href;
    const files = [join(dir, 'first.test.mjs'), join(dir, 'second.test.mjs')];
    writeFileSync(
      join(dir, 'page-shard.mjs'),
      `import { runFiles } from ${JSON.stringify(runner)};\nawait runFiles(${JSON.stringify(files)});\n`,
    );
    // The child reports on its own (node's runner would otherwise make it talk its inner protocol).
    const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
    delete env.NODE_TEST_CONTEXT;
    delete env.MG_TEST_FILE_TIMES;
    const child = spawn(
      process.execPath,
      [
        ...(fromSource ? ['--import', 'tsx'] : []),
        '--test',
        '--test-reporter=tap',
        join(dir, 'page-shard.mjs'),
      ],
      { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /^# pass 2$/m, output);
  },
);
