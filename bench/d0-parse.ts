/**
 * IEC 62056-21 (D0) readout parse throughput (target: >= 10x npm smartmeter-obis,
 * docs/architecture.md#performance).
 *
 * Readouts per CPU second, bytes in -> Reading out, of meter-gateway's D0 decoder (framer, BCC check,
 * data-set parser, Reading) and of npm smartmeter-obis's D0Protocol (driven as its transports drive
 * it: checkMessage / handleMessage until the process is complete), on the same corpus readouts, in
 * one run, subjects alternated, medians of `reps` runs; the ratio compares medians of the same run.
 *
 * Two feeds per corpus readout: the readout itself again and again, and a rotation of 64 readouts
 * of that meter in which every digit run of every value (not of addresses or units) is increased by
 * the readout's number, same width, the BCC computed anew where the readout carries one - more change
 * than a meter sends. Both subjects get the same readouts in order. Before timing, the decoder's
 * Reading of every changing readout is checked against a fresh decoder's,
 * and the readings must differ from one readout to the next.
 *
 * Run: `node --import tsx bench/d0-parse.ts` (or dist/bench/d0-parse.js after `npm run build`).
 */
import { formatBenchTable, type BenchRow } from './bench-table.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DecodeResult } from '../src/meter/decoder.js';
import { createD0Decoder } from '../src/meter/d0/decoder.js';
import { corpusDir } from '../test/helpers/environment.js';
import { readoutStream } from '../test/meter/d0/readout-variants.js';

export type D0BenchRow = BenchRow;

export interface D0BenchOptions {
  /** CPU seconds per measurement (default 0.5). */
  seconds?: number;
  /** Repetitions per subject, order alternated (default 5). */
  reps?: number;
  /** Only these corpus files (default: all of READOUTS). */
  files?: readonly string[];
}

/** Parses one readout; returns the number of values so that nothing is optimised away. */
type ParseOnce = (readout: Buffer) => number;

const STREAM_LENGTH = 64;

interface Subject {
  name: string;
  prepare(): ParseOnce;
}

const require = createRequire(import.meta.url);

const meterGateway: Subject = {
  name: 'meter-gateway',
  prepare() {
    const decoder = createD0Decoder();
    return (readout) => {
      const results = decoder.push(readout, 0);
      const [result] = results;
      if (results.length !== 1 || !result?.ok) throw new Error('meter-gateway did not decode the readout');
      return result.reading.values.size;
    };
  },
};

interface D0ProtocolInstance {
  initState(): void;
  checkMessage(message: Buffer): boolean;
  handleMessage(message: Buffer): Buffer | null;
  isProcessComplete(): boolean;
}
type D0ProtocolClass = new (
  options: Record<string, unknown>,
  store: (error: Error | null, data: Record<string, unknown> | null) => void,
) => D0ProtocolInstance;

const smartmeterObis: Subject = {
  name: 'smartmeter-obis',
  prepare() {
    const D0Protocol = require('smartmeter-obis/lib/protocols/D0Protocol.js') as D0ProtocolClass;
    let stored = 0;
    let failure: Error | null = null;
    const protocol = new D0Protocol(
      { debug: 0, logger: () => {}, transportSerialBaudrate: 300 },
      (error, data) => {
        if (error) failure = error;
        else stored = Object.keys(data ?? {}).length;
      },
    );
    return (readout) => {
      protocol.initState();
      let message: Buffer | null = readout;
      while (message && message.length > 0 && protocol.checkMessage(message)) {
        message = protocol.handleMessage(message);
        if (protocol.isProcessComplete()) break;
      }
      if (failure || !protocol.isProcessComplete())
        throw new Error(`smartmeter-obis failed: ${String(failure)}`);
      return stored;
    };
  },
};

const SUBJECTS: readonly Subject[] = [meterGateway, smartmeterObis];

/**
 * Corpus readouts: a full mode C readout with billing periods (BCC checked), a mode D push with many
 * data sets per line, and a short mode D push (first of the two telegrams in the file).
 */
const READOUTS: readonly { file: string; length?: number }[] = [
  { file: 'smartmeter-obis_iskra_mt174_modeC.txt' },
  { file: 'smartmeter-obis_siemens_wr5_modeD_push.txt' },
  { file: 'smartmeter-obis_emh_ehz_push_x2.txt', length: 135 },
];

/** What a Reading says, comparable across decoders. */
function readingText(result: DecodeResult | undefined): string {
  if (!result?.ok) return `rejected: ${result?.error.message}`;
  const { identity, values, tariff } = result.reading;
  return JSON.stringify({ identity, values: [...values], tariff });
}

/**
 * Outside the timing: the decoder, fed the readouts in turn, gives for each the Reading a fresh
 * decoder gives, and the readings differ from one readout to the next.
 */
function checkStream(readouts: readonly Buffer[]): void {
  const decoder = createD0Decoder();
  const seen = new Set<string>();
  for (const [n, readout] of readouts.entries()) {
    const streamed = decoder.push(readout, 0);
    const fresh = createD0Decoder().push(readout, 0);
    const text = readingText(streamed[0]);
    if (streamed.length !== 1 || !streamed[0]!.ok || text !== readingText(fresh[0]))
      throw new Error(`readout ${n}: decoder gives ${text}, a fresh decoder ${readingText(fresh[0])}`);
    seen.add(text);
  }
  if (seen.size !== readouts.length)
    throw new Error(`${readouts.length} changing readouts gave only ${seen.size} different readings`);
}

/**
 * Readouts per second of CPU time (process.cpuUsage: user + system, all threads, so garbage
 * collection counts): on a shared, loaded machine wall time mostly measures the other processes.
 * The readouts are parsed in turn.
 */
function measure(parse: ParseOnce, readouts: readonly Buffer[], seconds: number): number {
  let sink = 0;
  let next = 0;
  for (let i = 0; i < 200; i++) sink += parse(readouts[next++ % readouts.length]!);
  let count = 0;
  const budget = seconds * 1e6;
  const started = process.cpuUsage();
  let used = 0;
  while (used < budget) {
    for (let i = 0; i < 20; i++) sink += parse(readouts[next++ % readouts.length]!);
    count += 20;
    const elapsed = process.cpuUsage(started);
    used = elapsed.user + elapsed.system;
  }
  if (sink < 0) console.log(sink);
  return count / (used / 1e6);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function benchFeed(
  readouts: readonly Buffer[],
  benchmark: string,
  seconds: number,
  reps: number,
): D0BenchRow[] {
  const parsers = new Map<string, ParseOnce>();
  const failures = new Map<string, string>();
  for (const subject of SUBJECTS) {
    try {
      const parse = subject.prepare();
      for (const readout of readouts) parse(readout);
      parsers.set(subject.name, parse);
    } catch (error) {
      failures.set(subject.name, String(error));
    }
  }
  const rates = new Map<string, number[]>(SUBJECTS.map((s) => [s.name, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < SUBJECTS.length; k++) {
      const subject = SUBJECTS[(rep + k) % SUBJECTS.length]!;
      const parse = parsers.get(subject.name);
      if (parse) rates.get(subject.name)!.push(measure(parse, readouts, seconds));
    }
  }
  const ours = rates.get(meterGateway.name)!;
  return SUBJECTS.map((subject): D0BenchRow => {
    const measured = rates.get(subject.name)!;
    const unit = 'readouts/s';
    if (measured.length === 0)
      return { benchmark, subject: subject.name, value: Number.NaN, unit, note: failures.get(subject.name) };
    const value = median(measured);
    const spread = `${Math.round(Math.min(...measured))}..${Math.round(Math.max(...measured))}`;
    const ratio = ours.length > 0 ? median(ours) / value : undefined;
    return { benchmark, subject: subject.name, value, unit, ratio, note: spread };
  });
}

export async function runD0Bench(options: D0BenchOptions = {}): Promise<D0BenchRow[]> {
  const seconds = options.seconds ?? 0.5;
  const reps = options.reps ?? 5;
  const dir = join(corpusDir, 'd0');
  if (!existsSync(dir)) {
    return [
      {
        benchmark: 'D0 parse',
        subject: 'meter-gateway',
        value: Number.NaN,
        unit: 'readouts/s',
        note: `corpus missing at ${dir}`,
      },
    ];
  }
  const selected = READOUTS.filter(({ file }) => options.files?.includes(file) ?? true);
  return selected.flatMap(({ file, length }) => {
    const bytes = readFileSync(join(dir, file));
    const readout = length === undefined ? bytes : bytes.subarray(0, length);
    const name = `D0 parse ${file} (${readout.length} B)`;
    const stream = readoutStream(readout, STREAM_LENGTH);
    checkStream(stream);
    return [
      ...benchFeed([readout], `${name}, same readout`, seconds, reps),
      ...benchFeed(stream, `${name}, ${STREAM_LENGTH} changing`, seconds, reps),
    ];
  });
}

export function formatD0Bench(rows: readonly D0BenchRow[]): string {
  return formatBenchTable(rows, 'readouts');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatD0Bench(await runD0Bench()));
}
