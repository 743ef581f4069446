import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** Field and record separators of the call log and of the joined argv (ASCII US and RS). */
const US = '\x1f';
const RS = '\x1e';

/** `text` as one single-quoted sh word (a ' inside becomes '\''). */
function shQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The sh script that answers from `answers`: the first entry whose `args` equal the argv, or whose
 * `prefix` is the argv's start, in table order (a `case` on the argv joined by US); its stdout and
 * stderr are files beside the script. Each run appends its argv to the log, each argument ended by
 * US and the run by RS.
 */
function scriptFor(dir: string, log: string, answers: FakeAnswer[], version: number): string {
  const arms = answers.map((answer, index) => {
    const patterns: string[] = [];
    if (answer.args) patterns.push(shQuoted(answer.args.join(US)));
    if (answer.prefix) {
      const prefix = answer.prefix.join(US);
      patterns.push(shQuoted(prefix), answer.prefix.length === 0 ? '*' : `${shQuoted(prefix + US)}*`);
    }
    if (patterns.length === 0) return '';
    const base = join(dir, `answer-${version}-${index}`);
    if (answer.stdout) writeFileSync(`${base}.out`, answer.stdout);
    if (answer.stderr) writeFileSync(`${base}.err`, answer.stderr);
    const body = [
      answer.stdout ? `cat ${shQuoted(`${base}.out`)}` : '',
      answer.stderr ? `cat ${shQuoted(`${base}.err`)} >&2` : '',
      `exit ${answer.code ?? 0}`,
    ].filter(Boolean);
    return `  ${patterns.join(' | ')}) ${body.join('; ')} ;;`;
  });
  return [
    '#!/bin/sh',
    `for arg in "$@"; do printf '%s\\037' "$arg"; done >>${shQuoted(log)}`,
    `printf '\\036' >>${shQuoted(log)}`,
    `IFS=$(printf '\\037')`,
    'case "$*" in',
    ...arms.filter(Boolean),
    'esac',
    'exit 0',
    '',
  ].join('\n');
}

/**
 * A real executable named `nmcli` (an sh script, so a call costs a shell, not a Node start) that
 * records its argv and answers from a table: the backend under test runs it with execFile exactly as
 * it runs the real one, so argument quoting and output parsing go through the same process boundary.
 */
export function createFakeNmcli(): FakeNmcli {
  const dir = mkdtempSync(join(tmpdir(), 'fake-nmcli-'));
  const log = join(dir, 'calls.log');
  const path = join(dir, 'nmcli');
  let version = 0;
  /** Writes the script beside and renames it over the old one: a run never sees half a script. */
  const install = (answers: FakeAnswer[]) => {
    version += 1;
    const next = join(dir, `.nmcli-${version}`);
    writeFileSync(next, scriptFor(dir, log, answers, version));
    chmodSync(next, 0o755);
    renameSync(next, path);
  };
  writeFileSync(log, '');
  install([]);
  return {
    dir,
    answer: install,
    calls: () =>
      readFileSync(log, 'utf8')
        .split(RS)
        .slice(0, -1)
        .map((record) => record.split(US).slice(0, -1)),
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
