import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/environment.js';

/**
 * The typed routes' check bites (docs/architecture.md#typed-routes): test/types/route-shape.fail.ts,
 * which `npm run build` leaves out, declares a route whose handler answers text where its contract
 * says integers, and the compiler refuses it; its twin route-shape.ok.ts, the same route answering
 * the declared shape, compiles. Both in one compiler run, against the built contracts.
 */
test('a handler answering another shape than its route declares fails the type check; its twin compiles', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-route-shape-'));
  try {
    const config = join(dir, 'tsconfig.json');
    writeFileSync(
      config,
      JSON.stringify({
        extends: join(repoRoot, 'tsconfig.json'),
        compilerOptions: {
          noEmit: true,
          incremental: false,
          typeRoots: [join(repoRoot, 'node_modules', '@types')],
        },
        include: [],
        exclude: [],
        files: ['route-shape.fail.ts', 'route-shape.ok.ts'].map((name) =>
          join(repoRoot, 'test', 'types', name),
        ),
        references: [{ path: join(repoRoot, 'src', 'contracts') }],
      }),
    );
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [tsc, '-p', config, '--pretty', 'false'],
        { cwd: repoRoot, maxBuffer: 1 << 20 },
        (error, stdout, stderr) =>
          resolve({
            code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
            output: stdout + stderr,
          }),
      );
    });
    const errors = output.split('\n').filter((line) => / error TS\d+:/.test(line));
    assert.notEqual(code, 0, output);
    assert.equal(errors.length, 1, output);
    assert.match(
      errors[0]!,
      /^test\/types\/route-shape\.fail\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\./,
    );
    assert.doesNotMatch(output, /route-shape\.ok\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
