/**
 * SML parse throughput (issue meter-input: >= 10x npm smartmeter-obis).
 *
 * Frames per second, bytes in -> Reading out, of meter-gateway's SML decoder (escape framer,
 * CRC-16/X-25, TL parser, Reading) and of npm smartmeter-obis's SmlProtocol (driven as its serial
 * transport drives it: checkMessage on the received bytes, then handleMessage, which parses with
 * open-sml and stores the OBIS results), on the same corpus frames, in one run, subjects
 * alternated, medians of `reps` runs; the ratio compares medians of the same run. Rates are frames
 * per second of process CPU time (user + system, GC threads included): on the shared 2-vCPU VM,
 * wall-clock rates of the same code swing by 10x with the load of other processes, CPU time far
 * less.
 *
 * Run: `node --import tsx bench/sml-parse.ts` (or dist/bench/sml-parse.js after `npm run build`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSmlDecoder, parseSmlCapture } from '../src/meter/sml/decoder.js';
import { corpusDir } from '../test/helpers/environment.js';

export interface SmlBenchRow {
  /** What was measured, e.g. "SML parse HOLLEY_DTZ541-ZDBA.bin frame (528 B)". */
  benchmark: string;
  /** "meter-gateway" or "smartmeter-obis". */
  subject: string;
  /** Median throughput (per CPU second). */
  value: number;
  unit: string;
  /** meter-gateway's median divided by this subject's median, same run (1 for meter-gateway). */
  ratio?: number;
  /** Spread of the repetitions ("min..max") or why a subject could not be measured. */
  note?: string;
}

export interface SmlBenchOptions {
  /** CPU seconds per measurement (default 0.5). */
  seconds?: number;
  /** Repetitions per subject, order alternated (default 5). */
  reps?: number;
}

/** Parses one frame; returns the number of values so that nothing is optimised away. */
type ParseOnce = (frame: Buffer) => number;

interface Subject {
  name: string;
  prepare(): ParseOnce;
}

const require = createRequire(import.meta.url);

const meterGateway: Subject = {
  name: 'meter-gateway',
  prepare() {
    const decoder = createSmlDecoder();
    return (frame) => {
      const [result] = decoder.push(frame, 0);
      if (!result?.ok) throw new Error(`meter-gateway rejected the frame: ${result?.error.message}`);
      return result.reading.values.size;
    };
  },
};

interface SmlProtocolInstance {
  checkMessage(message: Buffer): boolean;
  handleMessage(message: Buffer): Buffer | null;
}
type SmlProtocolClass = new (
  options: Record<string, unknown>,
  store: (error: Error | null, data: Record<string, unknown> | null) => void,
) => SmlProtocolInstance;

const smartmeterObis: Subject = {
  name: 'smartmeter-obis',
  prepare() {
    const SmlProtocol = require('smartmeter-obis/lib/protocols/SmlProtocol.js') as SmlProtocolClass;
    let stored = 0;
    let failure: Error | null = null;
    const protocol = new SmlProtocol({ protocol: 'SmlProtocol', debug: 0, logger: () => {} }, (error, data) => {
      if (error) failure = error;
      else stored = Object.keys(data ?? {}).length;
    });
    return (frame) => {
      stored = 0;
      if (!protocol.checkMessage(frame)) throw new Error('smartmeter-obis did not recognise the frame');
      protocol.handleMessage(frame);
      if (failure || stored === 0) throw new Error(`smartmeter-obis failed: ${String(failure)}`);
      return stored;
    };
  },
};

const SUBJECTS: readonly Subject[] = [meterGateway, smartmeterObis];

/** EMH eHZ (smartmeter-obis' own fixture), Holley DTZ541 (21 entries), ISKRA MT631 (short). */
const CAPTURES = [
  'smartmeter-obis_emh_ehz.bin',
  'libsml-testing/HOLLEY_DTZ541-ZDBA.bin',
  'libsml-testing/ISKRA_MT631-D1A52-K0z-H01_without_PIN.bin',
];

/** Frames per CPU second over `seconds` of CPU time. */
function measure(parse: ParseOnce, frame: Buffer, seconds: number): number {
  let sink = 0;
  for (let i = 0; i < 2000; i++) sink += parse(frame);
  let count = 0;
  const started = process.cpuUsage();
  const budget = seconds * 1e6;
  let used = 0;
  while (used < budget) {
    for (let i = 0; i < 200; i++) sink += parse(frame);
    count += 200;
    const { user, system } = process.cpuUsage(started);
    used = user + system;
  }
  if (sink < 0) console.log(sink);
  return count / (used / 1e6);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The first frame of a capture that meter-gateway accepts. */
function firstFrame(capture: string): Buffer {
  for (const result of parseSmlCapture(readFileSync(join(corpusDir, 'sml', capture)))) {
    if (result.ok) return result.frame;
  }
  throw new Error(`no valid SML frame in ${capture}`);
}

function benchFrame(capture: string, seconds: number, reps: number): SmlBenchRow[] {
  const frame = firstFrame(capture);
  const benchmark = `SML parse ${capture.split('/').pop()} frame (${frame.length} B)`;
  const rates = new Map<string, number[]>(SUBJECTS.map((s) => [s.name, []]));
  const failures = new Map<string, string>();
  const parsers = new Map<string, ParseOnce>();
  for (const subject of SUBJECTS) {
    try {
      const parse = subject.prepare();
      parse(frame);
      parsers.set(subject.name, parse);
    } catch (error) {
      failures.set(subject.name, String(error));
    }
  }
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < SUBJECTS.length; k++) {
      const subject = SUBJECTS[(rep + k) % SUBJECTS.length]!;
      const parse = parsers.get(subject.name);
      if (parse) rates.get(subject.name)!.push(measure(parse, frame, seconds));
    }
  }
  const ours = rates.get(meterGateway.name)!;
  return SUBJECTS.map((subject): SmlBenchRow => {
    const measured = rates.get(subject.name)!;
    if (measured.length === 0) {
      return { benchmark, subject: subject.name, value: Number.NaN, unit: 'frames/s', note: failures.get(subject.name) };
    }
    const value = median(measured);
    const spread = `${Math.round(Math.min(...measured))}..${Math.round(Math.max(...measured))}`;
    const ratio = ours.length > 0 ? median(ours) / value : undefined;
    return { benchmark, subject: subject.name, value, unit: 'frames/s', ratio, note: spread };
  });
}

export async function runSmlBench(options: SmlBenchOptions = {}): Promise<SmlBenchRow[]> {
  const seconds = options.seconds ?? 0.5;
  const reps = options.reps ?? 5;
  if (!existsSync(join(corpusDir, 'sml'))) {
    return [
      { benchmark: 'SML parse', subject: 'meter-gateway', value: Number.NaN, unit: 'frames/s', note: `corpus missing at ${corpusDir}` },
    ];
  }
  return CAPTURES.flatMap((capture) => benchFrame(capture, seconds, reps));
}

export function formatSmlBench(rows: readonly SmlBenchRow[]): string {
  const lines = ['benchmark                                                  subject            frames/s   meter-gateway x   runs'];
  for (const row of rows) {
    const value = Number.isNaN(row.value) ? 'n/a' : Math.round(row.value).toString();
    const ratio = row.ratio === undefined ? '' : `${row.ratio.toFixed(1)}x`;
    lines.push(`${row.benchmark.padEnd(59)}${row.subject.padEnd(17)}${value.padStart(10)}   ${ratio.padStart(15)}   ${row.note ?? ''}`);
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runSmlBench();
  console.log(formatSmlBench(rows));
}
