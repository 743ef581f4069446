import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One recorded answer: for an invocation whose argv equals `args` (or starts with `prefix`). */
export interface FakeAnswer {
  args?: string[];
  prefix?: string[];
  stdout?: string;
  stderr?: string;
  code?: number;
}

export interface FakeNmcli {
  /** Directory to put first on PATH. */
  dir: string;
  /** Replaces the answer table. Unmatched invocations exit 0 with no output. */
  answer(answers: FakeAnswer[]): void;
  /** argv of every invocation so far, in order. */
  calls(): string[][];
  clearCalls(): void;
  remove(): void;
}

/**
 * A real executable named `nmcli` (a Node script) that records its argv as one JSON line per run
 * and answers from a table: the backend under test runs it with execFile exactly as it runs the real
 * one, so argument quoting and output parsing go through the same process boundary.
 */
export function createFakeNmcli(): FakeNmcli {
  const dir = mkdtempSync(join(tmpdir(), 'fake-nmcli-'));
  const log = join(dir, 'calls.jsonl');
  const table = join(dir, 'answers.json');
  writeFileSync(log, '');
  writeFileSync(table, '[]');
  const script = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
const answers = JSON.parse(fs.readFileSync(${JSON.stringify(table)}, 'utf8'));
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const hit = answers.find((a) => (a.args && same(a.args, args)) || (a.prefix && same(a.prefix, args.slice(0, a.prefix.length))));
if (hit && hit.stdout) process.stdout.write(hit.stdout);
if (hit && hit.stderr) process.stderr.write(hit.stderr);
process.exitCode = hit && hit.code ? hit.code : 0;
`;
  const path = join(dir, 'nmcli');
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return {
    dir,
    answer: (answers) => writeFileSync(table, JSON.stringify(answers)),
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as string[]),
    clearCalls: () => writeFileSync(log, ''),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** nmcli terse escaping (nmcli(1) --escape): ':' and '\\' inside a value get a backslash. */
export function terse(...values: string[]): string {
  return values.map((value) => value.replace(/[\\:]/g, (char) => `\\${char}`)).join(':');
}

export function hexOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex').toUpperCase();
}
