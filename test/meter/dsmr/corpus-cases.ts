import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from '../../helpers/environment.js';

/** The capture corpus's dsmr/ folder (read in place, never copied). */
export const dsmrCorpusDir: string = join(corpusDir, 'dsmr');

export interface CrcExpectation {
  computed?: string;
  present?: boolean;
  field?: string;
  verifies?: boolean | null;
}

/** The parts of an X.expected.json this suite reads (see the corpus PROVENANCE.md). */
export interface DsmrExpectation {
  file: string;
  crc?: CrcExpectation | null;
  expected?: Record<string, ExpectedEntry> | null;
  expected_behaviour?: string;
  expected_parsed_datasets?: { address: string; values: [string, string | null][] }[];
  expected_decoded_by_amshan?: Record<string, number | string>;
  expected_to_json?: { MBUS_DEVICES?: ExpectedMbusDevice[] };
  telegram_lengths?: number[];
  segments?: { offset: number; length: number; kind: string }[];
  notes?: string[];
}

export interface ExpectedEntry {
  value?: unknown;
  unit?: string | null;
  type?: string;
  datetime?: string | null;
  channel?: number;
  raw?: string;
  timestamp?: string;
  entries?: ExpectedProfileEntry[];
  buffer_length?: number;
  buffer_type?: string | null;
  esphome_average_kW?: string;
}

export interface ExpectedProfileEntry {
  datetime?: string | null;
  occurred?: string | null;
  value: string | number | null;
  unit: string | null;
}

export interface ExpectedMbusDevice {
  CHANNEL_ID: number;
  MBUS_METER_READING?: { value: number; unit: string | null; datetime?: string };
}

export interface CorpusCase {
  /** Path relative to the dsmr corpus folder ("edge/esphome_lf_only.txt"). */
  name: string;
  bytes: Buffer;
  expectation: DsmrExpectation;
}

/** Every data file of corpus/dsmr and corpus/dsmr/edge that has an X.expected.json beside it. */
export function dsmrCorpusCases(): CorpusCase[] {
  if (!existsSync(dsmrCorpusDir)) return [];
  const cases: CorpusCase[] = [];
  for (const folder of ['', 'edge']) {
    const dir = join(dsmrCorpusDir, folder);
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(txt|bin)$/.test(file)) continue;
      const expectationFile = join(dir, file.replace(/\.(txt|bin)$/, '.expected.json'));
      if (!existsSync(expectationFile)) continue;
      cases.push({
        name: folder === '' ? file : `${folder}/${file}`,
        bytes: readFileSync(join(dir, file)),
        expectation: JSON.parse(readFileSync(expectationFile, 'utf8')) as DsmrExpectation,
      });
    }
  }
  return cases;
}

export function corpusFile(name: string): Buffer {
  return readFileSync(join(dsmrCorpusDir, name));
}

export interface LineLevelCase {
  line: string;
  expected: unknown;
  source: { item: string };
}

export function lineLevelCases(): LineLevelCase[] {
  const file = join(dsmrCorpusDir, 'edge', 'line_level_cases.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { cases: LineLevelCase[] }).cases;
}
