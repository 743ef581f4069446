import type { MeterProfileName } from '../../modbus-protocol/profiles/catalogue.js';
import { crcMatches, sealFrame } from '../../modbus-protocol/rtu-frame.js';
import type { MeterIdentity } from '../../reading/reading.js';
import type { SerialLink } from '../../serial/serial-link.js';
import { systemClock, type Clock } from '../../clock.js';

/**
 * The probe's Modbus RTU step: a Modbus meter never sends by itself, so it is asked. At each of
 * the usual rates (9600 first, the Eastron and Chint default, then 19200, 4800, 2400; 8N1) and
 * unit ids (1, 2) one read request goes out; any well-formed reply from that unit, data or
 * exception, proves a slave there (Modbus over Serial Line V1.02 §2.5.1: address, PDU, CRC-16).
 * The map is then told apart by what it answers: "SunS" at holding 40000 (SunSpec), a float at
 * holding 0x2006 (Chint DTSU666 Ua), input 0x0000 (Eastron; read with the SDM630 map, whose L1
 * registers are those of the one-phase SDM120 too).
 */

const BAUD_RATES = [9600, 19200, 4800, 2400] as const;
const UNIT_IDS = [1, 2] as const;

interface MapCheck {
  profile: MeterProfileName;
  functionCode: 3 | 4;
  start: number;
  matches: (data: Buffer) => boolean;
}

const MAP_CHECKS: readonly MapCheck[] = [
  {
    profile: 'sunspec',
    functionCode: 3,
    start: 40000,
    matches: (data) => data.toString('latin1') === 'SunS',
  },
  { profile: 'dtsu666', functionCode: 3, start: 0x2006, matches: () => true },
  { profile: 'sdm630', functionCode: 4, start: 0x0000, matches: () => true },
];

export interface ModbusProbeFinding {
  source: string;
  identity: MeterIdentity;
}

export interface ModbusProbeOutcome {
  finding?: ModbusProbeFinding;
  bytes: number;
  gone?: Error;
}

/**
 * How long a reply may take: the request and a short reply on the line (about 20 characters) plus
 * the meter's own delay and a USB adapter's latency (Eastron and Chint answer within ~100 ms).
 */
function replyMs(baudRate: number): number {
  return Math.ceil((20 * 10 * 1000) / baudRate) + 150;
}

function readRequest(unit: number, functionCode: number, start: number, words: number): Buffer {
  const frame = Buffer.alloc(8);
  frame.writeUInt8(unit, 0);
  frame.writeUInt8(functionCode, 1);
  frame.writeUInt16BE(start, 2);
  frame.writeUInt16BE(words, 4);
  return sealFrame(frame);
}

/** The reply to `request` in `bytes`: its data (undefined for an exception), or 'none' yet. */
function replyIn(bytes: Buffer, request: Buffer): { data?: Buffer } | 'none' {
  const [unit, functionCode] = [request[0]!, request[1]!];
  for (let at = 0; at + 5 <= bytes.length; at++) {
    if (bytes[at] !== unit) continue;
    const code = bytes[at + 1];
    const length = code === functionCode ? 5 + bytes[at + 2]! : code === (functionCode | 0x80) ? 5 : 0;
    if (length === 0 || at + length > bytes.length) continue;
    if (!crcMatches(bytes, at, length)) continue;
    return code === functionCode ? { data: bytes.subarray(at + 3, at + length - 2) } : {};
  }
  return 'none';
}

class Exchanger {
  bytes = 0;
  gone: Error | undefined;

  constructor(
    private readonly link: SerialLink,
    private readonly deadline: number,
    private readonly signal: AbortSignal | undefined,
    private readonly clock: Clock,
  ) {}

  get stopped(): boolean {
    return this.gone !== undefined || this.signal?.aborted === true || this.clock.now() >= this.deadline;
  }

  /** Sends one request; resolves with the reply ('none' after the reply time, or when stopped). */
  async ask(request: Buffer, waitMs: number): Promise<{ data?: Buffer } | 'none'> {
    let received = Buffer.alloc(0);
    return new Promise((resolve) => {
      const finish = (answer: { data?: Buffer } | 'none'): void => {
        this.clock.clearTimeout(timer);
        this.link.removeAllListeners();
        resolve(answer);
      };
      const timer = this.clock.setTimeout(
        () => finish('none'),
        Math.min(waitMs, this.deadline - this.clock.now()),
      );
      this.link.on('close', (reason) => {
        this.gone = reason ?? new Error('port closed');
        finish('none');
      });
      this.link.on('data', (chunk) => {
        this.bytes += chunk.length;
        received = Buffer.concat([received, chunk]);
        const answer = replyIn(received, request);
        if (answer !== 'none') finish(answer);
      });
      this.link.write(request).catch((error: Error) => {
        this.gone = error;
        finish('none');
      });
    });
  }
}

/** Runs the Modbus RTU step on an open link for at most `durationMs`. */
export async function probeModbus(
  link: SerialLink,
  durationMs: number,
  signal?: AbortSignal,
  clock: Clock = systemClock,
): Promise<ModbusProbeOutcome> {
  const exchanger = new Exchanger(link, clock.now() + durationMs, signal, clock);
  const outcome = (finding?: ModbusProbeFinding): ModbusProbeOutcome => ({
    bytes: exchanger.bytes,
    ...(finding ? { finding } : {}),
    ...(exchanger.gone ? { gone: exchanger.gone } : {}),
  });
  for (const baudRate of BAUD_RATES) {
    if (exchanger.stopped) break;
    await link.setBaudRate(baudRate);
    for (const unit of UNIT_IDS) {
      if (exchanger.stopped) break;
      const first = MAP_CHECKS[MAP_CHECKS.length - 1]!;
      const request = readRequest(unit, first.functionCode, first.start, 2);
      if ((await exchanger.ask(request, replyMs(baudRate))) === 'none') continue;
      for (const check of MAP_CHECKS) {
        const answer = await exchanger.ask(
          readRequest(unit, check.functionCode, check.start, 2),
          replyMs(baudRate),
        );
        if (answer !== 'none' && answer.data && check.matches(answer.data)) {
          const params = new URLSearchParams({ unit: String(unit), profile: check.profile });
          params.set('baud', String(baudRate));
          params.set('parity', 'none');
          return outcome({ source: `modbus-rtu:${link.path}?${params.toString()}`, identity: {} });
        }
      }
    }
  }
  return outcome();
}
