/**
 * DSMR P1 parse throughput (DESIGN §6: DSMR v5 parse >= 10x the npm smartmeter-obis parser).
 *
 * Telegrams per CPU second, on the same corpus telegram, in one run, of:
 * - meter-gateway decoder: framer + CRC-16/ARC check + parser + Reading (what the daemon runs);
 * - meter-gateway parser: parseDsmrTelegram alone (text -> objects), the like of the others;
 * - npm dsmr-parser: its parse() (regex telegram match, CRC check, regex per known object);
 * - npm smartmeter-obis: its D0Protocol driven as its serial transport drives it on received
 *   bytes (sign-on message, then data message, then its OBIS parser), no port opened.
 * Subjects run interleaved in short slices and are timed by process CPU time, so a busy shared
 * machine slows all of them alike; the median of the slices is reported with its spread. Ratios
 * are value / smartmeter-obis value from the same run.
 *
 * Run: `node --import tsx bench/dsmr-parse.ts` (or dist/bench/dsmr-parse.js after `npm run build`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDsmrDecoder } from '../src/meter/dsmr/decoder.js';
import { parseDsmrTelegram } from '../src/meter/dsmr/parser.js';
import { corpusDir } from '../test/helpers/environment.js';

export interface BenchRow {
  /** What was measured, e.g. "DSMR parse ndokter_v5.txt". */
  benchmark: string;
  /** Who was measured: "meter-gateway decoder", "dsmr-parser", "smartmeter-obis", ... */
  subject: string;
  /** Median throughput. */
  value: number;
  unit: string;
  /** value / the smartmeter-obis value of the same benchmark and run. */
  ratio?: number;
  /** Spread of the slices ("min..max") or why a subject could not be measured. */
  note?: string;
}

export interface DsmrBenchOptions {
  /** CPU seconds spent per telegram over all subjects (default 4). */
  seconds?: number;
}

/** One parse of the telegram; returns a number derived from the result so nothing is optimised away. */
type ParseOnce = (telegram: Buffer) => number;

interface Subject {
  name: string;
  prepare(): ParseOnce;
}

const require = createRequire(import.meta.url);

const SUBJECTS: readonly Subject[] = [
  {
    name: 'meter-gateway decoder',
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
const SLICE_SECONDS = 0.02;
const REFERENCE = 'smartmeter-obis';

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Calls per slice so that one slice takes about SLICE_SECONDS of CPU. */
function callsPerSlice(parse: ParseOnce, telegram: Buffer): number {
  for (let i = 0; i < 2000; i++) parse(telegram);
  const started = cpuSeconds();
  let calls = 0;
  while (cpuSeconds() - started < SLICE_SECONDS) calls += parse(telegram) >= 0 ? 1 : 0;
  return Math.max(10, calls);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function benchTelegram(file: string, seconds: number): BenchRow[] {
  const telegram = readFileSync(join(corpusDir, 'dsmr', file));
  const benchmark = `DSMR parse ${file}`;
  const runners: { subject: Subject; parse: ParseOnce; calls: number; rates: number[] }[] = [];
  const failures = new Map<string, string>();
  for (const subject of SUBJECTS) {
    try {
      const parse = subject.prepare();
      runners.push({ subject, parse, calls: callsPerSlice(parse, telegram), rates: [] });
    } catch (error) {
      failures.set(subject.name, String(error));
    }
  }
  const slices = Math.max(3, Math.round(seconds / SLICE_SECONDS / Math.max(1, runners.length)));
  let sink = 0;
  for (let slice = 0; slice < slices; slice++) {
    for (const runner of runners) {
      const started = cpuSeconds();
      for (let i = 0; i < runner.calls; i++) sink += runner.parse(telegram);
      runner.rates.push(runner.calls / Math.max(cpuSeconds() - started, 1e-6));
    }
  }
  if (sink < 0) console.log(sink);
  const reference = runners.find((r) => r.subject.name === REFERENCE);
  const referenceRate = reference ? median(reference.rates) : Number.NaN;
  return SUBJECTS.map((subject): BenchRow => {
    const runner = runners.find((r) => r.subject === subject);
    if (!runner) {
      return {
        benchmark,
        subject: subject.name,
        value: Number.NaN,
        unit: 'telegrams/s',
        note: failures.get(subject.name),
      };
    }
    const value = median(runner.rates);
    const note = `${Math.round(Math.min(...runner.rates))}..${Math.round(Math.max(...runner.rates))}`;
    return {
      benchmark,
      subject: subject.name,
      value,
      unit: 'telegrams/s',
      ratio: value / referenceRate,
      note,
    };
  });
}

export async function runDsmrBench(options: DsmrBenchOptions = {}): Promise<BenchRow[]> {
  const seconds = options.seconds ?? 4;
  if (!existsSync(join(corpusDir, 'dsmr'))) {
    const note = `corpus missing at ${corpusDir}`;
    return [
      {
        benchmark: 'DSMR parse',
        subject: 'meter-gateway decoder',
        value: Number.NaN,
        unit: 'telegrams/s',
        note,
      },
    ];
  }
  return TELEGRAMS.flatMap((file) => benchTelegram(file, seconds));
}

export function formatDsmrBench(rows: readonly BenchRow[]): string {
  const header = `${'benchmark'.padEnd(38)}${'subject'.padEnd(23)}${'telegrams/CPU-s'.padStart(15)}${'x smartmeter-obis'.padStart(19)}   slices min..max`;
  const lines = [header];
  for (const row of rows) {
    const value = Number.isNaN(row.value) ? 'n/a' : Math.round(row.value).toString();
    const ratio = row.ratio === undefined || Number.isNaN(row.ratio) ? '' : `${row.ratio.toFixed(1)}x`;
    lines.push(
      `${row.benchmark.padEnd(38)}${row.subject.padEnd(23)}${value.padStart(15)}${ratio.padStart(19)}   ${row.note ?? ''}`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatDsmrBench(await runDsmrBench()));
}
