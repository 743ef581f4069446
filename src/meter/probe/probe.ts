import type { MeterIdentity, MeterProtocol } from '../../reading/reading.js';
import type { ProbeResultView, ProbeStepReport } from '../../contracts/probe.js';
import type { DecodeResult, MeterDecoder } from '../decoder.js';
import { createDsmrDecoder } from '../dsmr/decoder.js';
import { withDsmrEncryption } from '../dsmr/encryption.js';
import { createDecoder, type ConcreteProtocol } from '../protocols.js';
import { SerialLink } from '../../serial/serial-link.js';
import { formatLine, type LineSettings } from '../../serial/line-settings.js';
import { PROTOCOL_LINES } from '../transport/serial.js';
import { probeModbus } from './modbus-probe.js';
import { signOn } from './sign-on.js';
import { systemClock, type Clock } from '../../clock.js';

/**
 * Protocol and line detection on a serial port (`protocol=auto`, CLI `probe`). Steps run in this
 * order, each on a freshly opened port, and stop at the first valid frame:
 * 1. 115200 8N1, listen for DSMR 4/5 (a DSMR 4 meter sends every 10 s, DSMR 5 every second);
 * 2. 9600 7E1, listen for DSMR 2.2/3 (every 10 s) and IEC 62056-21 push meters;
 * 3. 9600 8N1, listen for SML (every 1..4 s);
 * 4. 300 7E1, IEC 62056-21 sign-on `/?!` and identification (modes A, B, C);
 * 5. Modbus RTU: read requests at the usual rates and unit ids (./modbus-probe.ts), in what is
 *    left of the budget (a Modbus meter is silent in every listening step before).
 * Listening windows are one send period plus a margin, so one complete frame fits; all steps fit
 * in PROBE_BUDGET_MS, which keeps the whole probe under 30 s.
 */

export interface ProbeStep {
  label: string;
  line: LineSettings;
  method: 'listen' | 'sign-on' | 'modbus';
  /** Decoders fed during a listening step. */
  protocols: readonly ConcreteProtocol[];
  durationMs: number;
}

export const PROBE_STEPS: readonly ProbeStep[] = [
  {
    label: 'DSMR 4/5',
    line: PROTOCOL_LINES.dsmr45,
    method: 'listen',
    protocols: ['dsmr'],
    durationMs: 10_500,
  },
  {
    label: 'DSMR 2.2/3, IEC 62056-21 push',
    line: PROTOCOL_LINES.dsmr23,
    method: 'listen',
    protocols: ['dsmr', 'd0'],
    durationMs: 10_500,
  },
  { label: 'SML', line: PROTOCOL_LINES.sml, method: 'listen', protocols: ['sml'], durationMs: 4_000 },
  {
    label: 'IEC 62056-21 sign-on',
    line: PROTOCOL_LINES.d0Request,
    method: 'sign-on',
    protocols: ['d0'],
    durationMs: 2_500,
  },
  {
    label: 'Modbus RTU',
    line: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
    method: 'modbus',
    protocols: [],
    durationMs: 1_400,
  },
];

/** Upper bound of a whole probe, open and close of every step included. */
export const PROBE_BUDGET_MS = 29_000;

export type { ProbeStepReport } from '../../contracts/probe.js';

/** What a probe can find: every protocol but a virtual meter's. */
type ProbedProtocol = Exclude<MeterProtocol, 'VIRTUAL'>;

/** The probe's answer (src/contracts/probe.ts) with this code's own types for its parts. */
export interface ProbeResult extends ProbeResultView {
  protocol?: ConcreteProtocol;
  meterProtocol?: ProbedProtocol;
  line?: LineSettings;
  identity?: MeterIdentity;
  steps: ProbeStepReport[];
}

export interface ProbeOptions {
  /** DSMR key, so that encrypted telegrams are recognized as decryptable. */
  encryptionKey?: string;
  signal?: AbortSignal;
  /** Called as each step starts (status RECOGNITION, CLI progress). */
  onStep?: (step: ProbeStep, durationMs: number) => void;
  steps?: readonly ProbeStep[];
  budgetMs?: number;
  /** The steps' windows and the budget (docs/architecture.md#clock). */
  clock?: Clock;
}

/** What one step found. */
export interface StepFinding {
  /** The byte protocol found; absent for a Modbus meter, which has its own source (`source`). */
  protocol?: ConcreteProtocol;
  source?: string;
  meterProtocol: ProbedProtocol;
  identity: MeterIdentity;
  encrypted?: boolean;
}

type StepOutcome = { finding: StepFinding | undefined; bytes: number; gone?: Error };

function decoderFor(protocol: ConcreteProtocol, encryptionKey: string | undefined): MeterDecoder {
  return protocol === 'dsmr'
    ? withDsmrEncryption(createDsmrDecoder(), encryptionKey)
    : createDecoder(protocol);
}

/** A valid frame, or an encrypted DSMR telegram (recognized even when it cannot be decrypted). */
function findingOf(
  protocol: ConcreteProtocol,
  decoder: MeterDecoder,
  results: readonly DecodeResult[],
): StepFinding | undefined {
  for (const result of results) {
    if (result.ok)
      return {
        protocol,
        meterProtocol: result.reading.protocol as ProbedProtocol,
        identity: result.reading.identity,
      };
    if (result.error.kind === 'encryption')
      return { protocol, meterProtocol: decoder.protocol as ProbedProtocol, identity: {}, encrypted: true };
  }
  return undefined;
}

/** Listens for pushed frames of the step's protocols until one is valid or the window ends. */
function listen(
  link: SerialLink,
  step: ProbeStep,
  durationMs: number,
  options: ProbeOptions,
): Promise<StepOutcome> {
  const decoders = step.protocols.map((protocol) => ({
    protocol,
    decoder: decoderFor(protocol, options.encryptionKey),
  }));
  const clock = options.clock ?? systemClock;
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (finding: StepFinding | undefined, gone?: Error): void => {
      clock.clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      link.removeAllListeners();
      resolve(gone ? { finding, bytes, gone } : { finding, bytes });
    };
    const onAbort = (): void => finish(undefined);
    const timer = clock.setTimeout(() => finish(undefined), durationMs);
    // Aborted while the port was opening: an abort listener added now would never fire.
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort);
    link.on('close', (reason) => finish(undefined, reason ?? new Error('port closed')));
    link.on('data', (chunk) => {
      bytes += chunk.length;
      for (const { protocol, decoder } of decoders) {
        const finding = findingOf(protocol, decoder, decoder.push(chunk, clock.now()));
        if (finding) return finish(finding);
      }
    });
  });
}

async function runStep(
  path: string,
  step: ProbeStep,
  durationMs: number,
  options: ProbeOptions,
): Promise<StepOutcome> {
  const link = await SerialLink.open(path, step.line);
  try {
    if (step.method === 'listen') return await listen(link, step, durationMs, options);
    if (step.method === 'modbus') {
      const { finding, bytes, gone } = await probeModbus(link, durationMs, options.signal, options.clock);
      const found: StepFinding | undefined = finding && { meterProtocol: 'MODBUS', ...finding };
      return gone ? { finding: found, bytes, gone } : { finding: found, bytes };
    }
    const answer = await signOn(link, durationMs, options.signal, options.clock);
    const finding: StepFinding | undefined = answer.identity && {
      protocol: 'd0',
      meterProtocol: 'IEC62056-21',
      identity: answer.identity,
    };
    return answer.gone
      ? { finding, bytes: answer.bytes, gone: answer.gone }
      : { finding, bytes: answer.bytes };
  } finally {
    await link.close();
  }
}

/** The `meter.source` URI for what a step found. */
export function sourceUri(
  path: string,
  protocol: ConcreteProtocol,
  line: LineSettings,
  d0Mode?: 'request' | 'push',
): string {
  const params = new URLSearchParams({ protocol });
  if (d0Mode) params.set('mode', d0Mode);
  if (d0Mode !== 'request') {
    params.set('baud', String(line.baudRate));
    params.set('databits', String(line.dataBits));
    params.set('parity', line.parity);
    if (line.stopBits !== 1) params.set('stopbits', String(line.stopBits));
  }
  return `serial:${path}?${params.toString()}`;
}

function foundResult(
  path: string,
  step: ProbeStep,
  finding: StepFinding,
): Omit<ProbeResult, 'steps' | 'elapsedMs'> {
  const d0Mode = finding.protocol === 'd0' ? (step.method === 'sign-on' ? 'request' : 'push') : undefined;
  const result: Omit<ProbeResult, 'steps' | 'elapsedMs'> = {
    status: 'OK',
    path,
    meterProtocol: finding.meterProtocol,
    line: { ...step.line },
    identity: finding.identity,
    source: finding.source ?? sourceUri(path, finding.protocol ?? 'dsmr', step.line, d0Mode),
  };
  if (finding.protocol) result.protocol = finding.protocol;
  if (d0Mode) result.d0Mode = d0Mode;
  if (finding.encrypted) result.encrypted = true;
  return result;
}

/**
 * Tries the probe steps on `path` and returns what was found with the `meter.source` URI to use;
 * NOT CONNECTED when the port cannot be opened (or vanishes), NOT RECOGNIZED when no step saw a
 * valid frame. Never takes longer than the budget (default PROBE_BUDGET_MS).
 */
export async function probeSerialPort(path: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const deadline = started + (options.budgetMs ?? PROBE_BUDGET_MS);
  const steps: ProbeStepReport[] = [];
  const finish = (result: Omit<ProbeResult, 'steps' | 'elapsedMs'>): ProbeResult => ({
    ...result,
    steps,
    elapsedMs: clock.now() - started,
  });
  for (const step of options.steps ?? PROBE_STEPS) {
    const report: ProbeStepReport = {
      label: step.label,
      line: formatLine(step.line),
      bytes: 0,
      outcome: 'skipped',
    };
    steps.push(report);
    const durationMs = Math.min(step.durationMs, deadline - clock.now());
    if (durationMs <= 0 || options.signal?.aborted) continue;
    options.onStep?.(step, durationMs);
    let outcome: StepOutcome;
    try {
      outcome = await runStep(path, step, durationMs, options);
    } catch (error) {
      return finish({ status: 'NOT CONNECTED', path, error: (error as Error).message });
    }
    report.bytes = outcome.bytes;
    if (outcome.gone) return finish({ status: 'NOT CONNECTED', path, error: outcome.gone.message });
    report.outcome = outcome.finding ? 'found' : outcome.bytes > 0 ? 'no frame' : 'silent';
    if (outcome.finding) return finish(foundResult(path, step, outcome.finding));
  }
  return finish({ status: 'NOT RECOGNIZED', path });
}
