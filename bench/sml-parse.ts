/**
 * SML parse throughput (target: >= 10x npm smartmeter-obis, docs/architecture.md#performance).
 *
 * Frames per second, bytes in -> Reading out, of meter-gateway's SML decoder (escape framer,
 * CRC-16/X-25, TL parser, Reading) and of npm smartmeter-obis's SmlProtocol
 * (driven as its serial transport drives it: checkMessage on the received bytes, then
 * handleMessage, which parses with open-sml and stores the OBIS results), on the same corpus
 * frames fed whole and in 16-byte chunks, in one run, subjects alternated, medians of `reps` runs;
 * the ratio compares medians of the same run. Two streams per capture: its first frame again and
 * again, and 64 frames of that meter whose values, transaction ids, second indexes and CRCs
 * change from one frame to the next (test/meter/sml/frame-variants.ts), as a meter sends them;
 * before timing, the decoder's readings of those 64 frames are checked against the parser's
 * (same values, all 64 different). Rates are frames per second of process CPU time (user + system,
 * GC threads included): on the shared 2-vCPU VM, wall-clock rates of the same code swing by 10x
 * with the load of other processes, CPU time far less.
 *
 * Run: `node --import tsx bench/sml-parse.ts` (or dist/bench/sml-parse.js after `npm run build`).
 */
import { formatBenchTable, type BenchRow } from './bench-table.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { createSmlDecoder, parseSmlCapture } from '../src/meter/sml/decoder.js';
import { parseSmlFrame } from '../src/meter/sml/parser.js';
import { smlFrameToReading } from '../src/meter/sml/to-reading.js';
import { corpusDir } from '../test/helpers/environment.js';
import { frameVariants } from '../test/meter/sml/frame-variants.js';

export type SmlBenchRow = BenchRow;

export interface SmlBenchOptions {
  /** CPU seconds per measurement (default 0.3). */
  seconds?: number;
  /** Repetitions per subject, order alternated (default 5). */
  reps?: number;
}

/**
 * Feeds one frame, as the given chunks, and returns the number of values it produced (so nothing
 * is optimised away); throws when the frame was not decoded.
 */
type ParseOnce = (chunks: readonly Buffer[]) => number;

interface Subject {
  name: string;
  prepare(): ParseOnce;
}

const require = createRequire(import.meta.url);

const meterGateway: Subject = {
  name: 'meter-gateway',
  prepare() {
    const decoder = createSmlDecoder();
    return (chunks) => {
      let values = 0;
      for (const chunk of chunks) {
        for (const result of decoder.push(chunk, 0)) {
          if (!result.ok) throw new Error(`meter-gateway rejected the frame: ${result.error.message}`);
          values += result.reading.values.size;
        }
      }
      if (values === 0) throw new Error('meter-gateway decoded no frame');
      return values;
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

/**
 * smartmeter-obis' SmlProtocol as its serial and TCP transports use it: the received bytes are
 * accumulated, checkMessage runs on them after every chunk, handleMessage once it matches and
 * returns the bytes left over. (The transports' own buffer handling is not measured.)
 */
const smartmeterObis: Subject = {
  name: 'smartmeter-obis',
  prepare() {
    const SmlProtocol = require('smartmeter-obis/lib/protocols/SmlProtocol.js') as SmlProtocolClass;
    let stored = 0;
    let failure: Error | null = null;
    const protocol = new SmlProtocol(
      { protocol: 'SmlProtocol', debug: 0, logger: () => {} },
      (error, data) => {
        if (error) failure = error;
        else stored += Object.keys(data ?? {}).length;
      },
    );
    let pending: Buffer = Buffer.alloc(0);
    return (chunks) => {
      stored = 0;
      for (const chunk of chunks) {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        if (protocol.checkMessage(pending)) pending = protocol.handleMessage(pending) ?? Buffer.alloc(0);
      }
      if (failure || stored === 0) throw new Error(`smartmeter-obis failed: ${String(failure)}`);
      return stored;
    };
  },
};

const SUBJECTS: readonly Subject[] = [meterGateway, smartmeterObis];

/** Frames in a changing-values stream. */
const STREAM_LENGTH = 64;

/** EMH eHZ (smartmeter-obis' own fixture), Holley DTZ541 (21 entries), ISKRA MT631 (short). */
const CAPTURES = [
  'smartmeter-obis_emh_ehz.bin',
  'libsml-testing/HOLLEY_DTZ541-ZDBA.bin',
  'libsml-testing/ISKRA_MT631-D1A52-K0z-H01_without_PIN.bin',
];

/**
 * How frames are fed: whole, and in 16-byte chunks as a serial port delivers them (an optical head
 * at 9600 baud 8N1 moves 960 bytes/s; an FTDI adapter with its default 16 ms latency timer hands
 * Node about 15 bytes per read); the same frame, or a stream of frames with changing values.
 */
const FEEDS: ReadonlyArray<{ label: string; chunkBytes: number | undefined; changing: boolean }> = [
  { label: 'whole frame', chunkBytes: undefined, changing: false },
  { label: '16-byte chunks', chunkBytes: 16, changing: false },
  { label: `${STREAM_LENGTH} changing, whole`, chunkBytes: undefined, changing: true },
  { label: `${STREAM_LENGTH} changing, 16-byte chunks`, chunkBytes: 16, changing: true },
];

function chunksOf(frame: Buffer, chunkBytes: number | undefined): Buffer[] {
  if (chunkBytes === undefined) return [frame];
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < frame.length; offset += chunkBytes) {
    chunks.push(frame.subarray(offset, offset + chunkBytes));
  }
  return chunks;
}

/** Frames per CPU second over `seconds` of CPU time, the frames (as chunks) fed in turn. */
function measure(parse: ParseOnce, frames: ReadonlyArray<readonly Buffer[]>, seconds: number): number {
  let sink = 0;
  let next = 0;
  for (let i = 0; i < 2000; i++) sink += parse(frames[next++ % frames.length]!);
  let count = 0;
  const started = process.cpuUsage();
  const budget = seconds * 1e6;
  let used = 0;
  while (used < budget) {
    for (let i = 0; i < 200; i++) sink += parse(frames[next++ % frames.length]!);
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

/**
 * The decoder's readings of a changing stream equal the parser's and differ from frame to frame:
 * the timed decoder decodes every value anew.
 */
function verifyStream(frames: readonly Buffer[]): void {
  const decoder = createSmlDecoder();
  const seen = new Set<string>();
  for (const frame of frames) {
    const [result] = decoder.push(frame, 0);
    if (!result?.ok) throw new Error('a changed frame was not decoded');
    const parsed = smlFrameToReading(parseSmlFrame(frame, { messageCrc: 'skip' }), 0);
    if (!isDeepStrictEqual(result.reading, parsed))
      throw new Error('decoder and parser differ on a changed frame');
    seen.add(JSON.stringify([...result.reading.values]));
  }
  if (seen.size !== frames.length)
    throw new Error(`only ${seen.size} different readings in ${frames.length} frames`);
}

function benchFrame(
  capture: string,
  feed: (typeof FEEDS)[number],
  seconds: number,
  reps: number,
): SmlBenchRow[] {
  const first = firstFrame(capture);
  const frames = feed.changing ? frameVariants(first, STREAM_LENGTH) : [first];
  if (feed.changing) verifyStream(frames);
  const chunks = frames.map((frame) => chunksOf(frame, feed.chunkBytes));
  const benchmark = `SML ${capture.split('/').pop()} (${first.length} B), ${feed.label}`;
  const rates = new Map<string, number[]>(SUBJECTS.map((s) => [s.name, []]));
  const failures = new Map<string, string>();
  const parsers = new Map<string, ParseOnce>();
  for (const subject of SUBJECTS) {
    try {
      const parse = subject.prepare();
      for (const frame of chunks) parse(frame);
      parsers.set(subject.name, parse);
    } catch (error) {
      failures.set(subject.name, String(error));
    }
  }
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < SUBJECTS.length; k++) {
      const subject = SUBJECTS[(rep + k) % SUBJECTS.length]!;
      const parse = parsers.get(subject.name);
      if (parse) rates.get(subject.name)!.push(measure(parse, chunks, seconds));
    }
  }
  const ours = rates.get(meterGateway.name)!;
  return SUBJECTS.map((subject): SmlBenchRow => {
    const measured = rates.get(subject.name)!;
    if (measured.length === 0) {
      return {
        benchmark,
        subject: subject.name,
        value: Number.NaN,
        unit: 'frames/s',
        note: failures.get(subject.name),
      };
    }
    const value = median(measured);
    const spread = `${Math.round(Math.min(...measured))}..${Math.round(Math.max(...measured))}`;
    const ratio = ours.length > 0 ? median(ours) / value : undefined;
    return { benchmark, subject: subject.name, value, unit: 'frames/s', ratio, note: spread };
  });
}

export async function runSmlBench(options: SmlBenchOptions = {}): Promise<SmlBenchRow[]> {
  const seconds = options.seconds ?? 0.3;
  const reps = options.reps ?? 5;
  if (!existsSync(join(corpusDir, 'sml'))) {
    return [
      {
        benchmark: 'SML parse',
        subject: 'meter-gateway',
        value: Number.NaN,
        unit: 'frames/s',
        note: `corpus missing at ${corpusDir}`,
      },
    ];
  }
  return CAPTURES.flatMap((capture) => FEEDS.flatMap((feed) => benchFrame(capture, feed, seconds, reps)));
}

export function formatSmlBench(rows: readonly SmlBenchRow[]): string {
  return formatBenchTable(rows, 'frames');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runSmlBench();
  console.log(formatSmlBench(rows));
}
