import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { corpusDir } from '../../helpers/environment.js';

/** The SML captures of the capture corpus (sml/) with their expected JSON (see its PROVENANCE.md). */
export const smlCorpusDir = join(corpusDir, 'sml');

export interface CorpusCase {
  /** Path relative to the sml corpus folder, e.g. `libsml-testing/EMH_eHZ361L5R.bin`. */
  name: string;
  bytes: Buffer;
  expected: ExpectedJson;
}

export interface ExpectedEntry {
  obis: string;
  unit?: string;
  value?: string;
  raw_value?: number | { hex: string; ascii?: string };
}

export interface ExpectedMessage {
  type: string;
  server_id?: { hex: string };
  entries?: ExpectedEntry[];
}

export interface ExpectedFrame {
  ok: boolean;
  messages?: ExpectedMessage[];
  error?: { DiscardedBytes?: number[]; __type?: string };
}

export interface ExpectedJson {
  summary?: { frames_reported: number; frames_ok: number; frames_error: number };
  key_values_first_ok_frame?: Record<string, { value: string; unit?: string; raw_value: unknown }>;
  frames?: ExpectedFrame[];
  expected_obis_entry_count?: number;
  expected_behaviour?: string;
  expected?: Record<string, { values: Array<{ value: string | number; unit?: string }> }> | null;
  crc_check?: { frames: Array<{ offset: number; length: number; crc: string }> };
}

export function corpusCases(): CorpusCase[] {
  if (!existsSync(smlCorpusDir)) return [];
  const cases: CorpusCase[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      const expectedPath = path.replace(/\.bin$/, '.expected.json');
      if (!entry.name.endsWith('.bin') || !existsSync(expectedPath)) continue;
      cases.push({
        name: relative(smlCorpusDir, path),
        bytes: readFileSync(path),
        expected: JSON.parse(readFileSync(expectedPath, 'utf8')) as ExpectedJson,
      });
    }
  };
  walk(smlCorpusDir);
  return cases;
}

export function corpusFile(name: string): Buffer {
  return readFileSync(join(smlCorpusDir, name));
}
