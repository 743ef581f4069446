/**
 * DSMR P1 parse throughput (target: >= 10x the npm smartmeter-obis parser).
 *
 * Telegrams per CPU second, on the same corpus telegrams, in one run, of:
 * - meter-gateway decoder: framer + CRC-16/ARC check + Reading (what the daemon runs);
 * - meter-gateway parser: parseDsmrTelegram alone (text -> every object), the like of the others;
 * - npm dsmr-parser: its parse() (regex telegram match, CRC check, regex per known object);
 * - npm smartmeter-obis: its D0Protocol driven as its serial transport drives it on received
 *   bytes (sign-on message, then data message, then its OBIS parser), no port opened.
 * Two feeds per corpus telegram: the telegram itself again and again, and a stream of 64
 * telegrams of that meter in which every decimal value and every timestamp changes from one
 * telegram to the next (CRC recomputed) - more change than a meter sends, whose gas reading
 * changes every 5 minutes and history monthly. Every subject gets the same telegrams in order.
 * Subjects run interleaved in short slices and are timed by process CPU time, so a busy shared
 * machine slows all of them alike; the median of the slices is reported with its spread. The
 * ratio is the meter-gateway decoder's median divided by the subject's median of the same run.
 *
 * Run: `node --import tsx bench/dsmr-parse.ts` (or dist/bench/dsmr-parse.js after `npm run build`).
 */
import { formatBenchTable, type BenchRow } from './bench-table.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc16Arc } from '../src/checksum/crc16.js';
import { crcHex } from '../src/meter/dsmr/crc16-arc.js';
import { createDsmrDecoder } from '../src/meter/dsmr/decoder.js';
import { parseDsmrTelegram } from '../src/meter/dsmr/parser.js';
import { corpusDir } from '../test/helpers/environment.js';

export type { BenchRow };

export interface DsmrBenchOptions {
  /** CPU seconds spent per benchmark over all subjects (default 3). */
  seconds?: number;
}

/** One parse of the telegram; returns a number derived from the result so nothing is optimised away. */
type ParseOnce = (telegram: Buffer) => number;

interface Subject {
  name: string;
  prepare(): ParseOnce;
}

const require = createRequire(import.meta.url);
const DECODER = 'meter-gateway decoder';

const SUBJECTS: readonly Subject[] = [
  {
    name: DECODER,
    prepare() {
      const decoder = createDsmrDecoder();
      return (telegram) => {
        const [result] = decoder.push(telegram, 0);
        if (!result?.ok) throw new Error(`meter-gateway rejected the telegram: ${result?.error.message}`);
        return result.reading.values.size;
      };
    },
  },
  {
    name: 'meter-gateway parser',
    prepare: () => (telegram) => parseDsmrTelegram(telegram).objects.length,
  },
  {
    name: 'dsmr-parser',
    prepare() {
      const parser = require('dsmr-parser') as { parse(text: string): { objects: object } };
      return (telegram) => Object.keys(parser.parse(telegram.toString('latin1')).objects).length;
    },
  },
  { name: 'smartmeter-obis', prepare: prepareSmartmeterObis },
];

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

/** The calls smartmeter-obis' SerialResponseTransport makes for each block of received bytes. */
function prepareSmartmeterObis(): ParseOnce {
  const D0Protocol = require('smartmeter-obis/lib/protocols/D0Protocol.js') as D0ProtocolClass;
  let stored = 0;
  let failure: Error | null = null;
  const options = { protocol: 'D0Protocol', debug: 0, logger: () => {}, transportSerialBaudrate: 115200 };
  const protocol = new D0Protocol(options, (error, data) => {
    if (error) failure = error;
    else stored = Object.keys(data ?? {}).length;
  });
  return (telegram) => {
    protocol.initState();
    let message: Buffer | null = telegram;
    while (message && message.length > 0 && protocol.checkMessage(message)) {
      message = protocol.handleMessage(message);
      if (protocol.isProcessComplete()) break;
    }
    if (failure || !protocol.isProcessComplete())
      throw new Error(`smartmeter-obis failed: ${String(failure)}`);
    return stored;
  };
}

/** DSMR 5.0 telegram (Iskra) and a Belgian DSMR 5 three-phase one with two M-Bus channels and history. */
const TELEGRAMS = ['ndokter_v5.txt', 'ndokter_fluvius_v171.txt'];
const STREAM_LENGTH = 64;
const SLICE_SECONDS = 0.02;
const WARMUP_SECONDS = 0.2;
const WARMUP_CALLS = 10_000;

/**
 * `count` telegrams of the meter that sent `telegram`: in the n-th, every decimal value
 * "digits.digits" is increased by n in its last digit (same width, wrapping) and every timestamp's
 * seconds by n, and the CRC-16/ARC after the '!' is computed anew.
 */
export function telegramStream(telegram: Buffer, count: number): Buffer[] {
  const text = telegram.toString('latin1');
  return Array.from({ length: count }, (_, n) => {
    const changed = text
      .replace(/\((\d+)\.(\d+)/g, (_match, whole: string, fraction: string) => {
        const digits = whole + fraction;
        const bumped = ((BigInt(digits) + BigInt(n)) % 10n ** BigInt(digits.length)).toString();
        const padded = bumped.padStart(digits.length, '0');
        return `(${padded.slice(0, whole.length)}.${padded.slice(whole.length)}`;
      })
      .replace(/\((\d{10})(\d\d)([SW])\)/g, (_match, minutes: string, seconds: string, flag: string) => {
        const second = ((Number(seconds) + n) % 60).toString().padStart(2, '0');
        return `(${minutes}${second}${flag})`;
      });
    const bytes = Buffer.from(changed, 'latin1');
    const bang = bytes.indexOf('!');
    bytes.write(crcHex(crc16Arc(bytes, bytes.indexOf('/'), bang + 1)), bang + 1, 'latin1');
    return bytes;
  });
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

interface Runner {
  subject: Subject;
  parse: ParseOnce;
  calls: number;
  rates: number[];
}

/**
 * Calls per slice so that one slice takes about SLICE_SECONDS of CPU, after WARMUP_CALLS calls
 * and WARMUP_SECONDS (the JIT compiles and a decoder learns its meter before anything is measured).
 */
function callsPerSlice(parse: ParseOnce, telegrams: readonly Buffer[]): number {
  const warmup = cpuSeconds();
  for (let i = 0; i < WARMUP_CALLS || cpuSeconds() - warmup < WARMUP_SECONDS; i++) {
    parse(telegrams[i % telegrams.length]!);
  }
  const started = cpuSeconds();
  let calls = 0;
  while (cpuSeconds() - started < SLICE_SECONDS)
    calls += parse(telegrams[calls % telegrams.length]!) >= 0 ? 1 : 0;
  return Math.max(10, calls);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function prepareRunners(telegrams: readonly Buffer[], failures: Map<string, string>): Runner[] {
  const runners: Runner[] = [];
  for (const subject of SUBJECTS) {
    try {
      const parse = subject.prepare();
      runners.push({ subject, parse, calls: callsPerSlice(parse, telegrams), rates: [] });
    } catch (error) {
      failures.set(subject.name, String(error));
    }
  }
  return runners;
}

function benchFeed(benchmark: string, telegrams: readonly Buffer[], seconds: number): BenchRow[] {
  const failures = new Map<string, string>();
  const runners = prepareRunners(telegrams, failures);
  const slices = Math.max(3, Math.round(seconds / SLICE_SECONDS / Math.max(1, runners.length)));
  let sink = 0;
  let next = 0;
  for (let slice = 0; slice < slices; slice++) {
    for (const runner of runners) {
      const started = cpuSeconds();
      for (let i = 0; i < runner.calls; i++) sink += runner.parse(telegrams[next++ % telegrams.length]!);
      runner.rates.push(runner.calls / Math.max(cpuSeconds() - started, 1e-6));
    }
  }
  if (sink < 0) console.log(sink);
  const decoder = runners.find((r) => r.subject.name === DECODER);
  const decoderRate = decoder ? median(decoder.rates) : Number.NaN;
  return SUBJECTS.map((subject): BenchRow => {
    const runner = runners.find((r) => r.subject === subject);
    const row = { benchmark, subject: subject.name, unit: 'telegrams/s' };
    if (!runner) return { ...row, value: Number.NaN, note: failures.get(subject.name) };
    const value = median(runner.rates);
    const note = `${Math.round(Math.min(...runner.rates))}..${Math.round(Math.max(...runner.rates))}`;
    return { ...row, value, ratio: decoderRate / value, note };
  });
}

export async function runDsmrBench(options: DsmrBenchOptions = {}): Promise<BenchRow[]> {
  const seconds = options.seconds ?? 3;
  if (!existsSync(join(corpusDir, 'dsmr'))) {
    const note = `corpus missing at ${corpusDir}`;
    return [{ benchmark: 'DSMR parse', subject: DECODER, value: Number.NaN, unit: 'telegrams/s', note }];
  }
  return TELEGRAMS.flatMap((file) => {
    const telegram = readFileSync(join(corpusDir, 'dsmr', file));
    const name = `${file} (${telegram.length} B)`;
    return [
      ...benchFeed(`${name}, same telegram`, [telegram], seconds),
      ...benchFeed(`${name}, ${STREAM_LENGTH} changing`, telegramStream(telegram, STREAM_LENGTH), seconds),
    ];
  });
}

export function formatDsmrBench(rows: readonly BenchRow[]): string {
  return formatBenchTable(rows, 'telegrams');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatDsmrBench(await runDsmrBench()));
}
