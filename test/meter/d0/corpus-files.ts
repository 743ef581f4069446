import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from '../../helpers/environment.js';

/** The `.expected.json` beside each D0 corpus file (see the corpus PROVENANCE.md). */
export interface ExpectedValue {
  value: number | string;
  unit?: string;
}

export interface ExpectedObject {
  raw?: string;
  values?: ExpectedValue[];
}

export interface ExpectedFile {
  file: string;
  segments: { offset: number; length: number; kind: string }[];
  block_check: { present: boolean; field_hex?: string; computed_hex?: string; verifies?: boolean };
  expected?: Record<string, ExpectedObject | Record<string, unknown>>;
}

export interface D0CorpusCase {
  /** Path relative to corpus/d0, e.g. 'edge/x.txt'. */
  name: string;
  bytes: Buffer;
  expected: ExpectedFile;
}

export const d0CorpusDir = join(corpusDir, 'd0');

/** Every `.txt` in d0/ and d0/edge/ that has an `.expected.json` next to it. */
export function d0CorpusCases(): D0CorpusCase[] {
  const cases: D0CorpusCase[] = [];
  for (const sub of ['', 'edge']) {
    const dir = join(d0CorpusDir, sub);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.txt')) continue;
      const jsonPath = join(dir, file.replace(/\.txt$/, '.expected.json'));
      if (!existsSync(jsonPath)) continue;
      cases.push({
        name: sub ? `${sub}/${file}` : file,
        bytes: readFileSync(join(dir, file)),
        expected: JSON.parse(readFileSync(jsonPath, 'utf8')) as ExpectedFile,
      });
    }
  }
  return cases;
}

export function d0CorpusCase(name: string): D0CorpusCase {
  const found = d0CorpusCases().find((c) => c.name === name);
  if (!found) throw new Error(`corpus file d0/${name} not found`);
  return found;
}

/** Bytes of the first segment whose kind starts with `kindPrefix`. */
export function segmentBytes(corpusCase: D0CorpusCase, kindPrefix: string): Buffer {
  const segment = corpusCase.expected.segments.find((s) => s.kind.startsWith(kindPrefix));
  if (!segment) throw new Error(`${corpusCase.name}: no segment '${kindPrefix}'`);
  return corpusCase.bytes.subarray(segment.offset, segment.offset + segment.length);
}
