import { EventEmitter } from 'node:events';
import { systemClock, type Clock } from '../../clock.js';
import { MeterDataError } from '../decoder.js';
import type { Reading } from '../../reading/reading.js';
import { ByteInbox, pause } from './byte-inbox.js';
import { decodeD0Frame } from './decoder.js';
import { D0Framer, DEFAULT_MAX_FRAME_SIZE, type D0FramerEvent } from './framer.js';
import {
  type D0Identification,
  isRequestEcho,
  modeCBaudChar,
  parseIdentification,
} from './identification.js';

/**
 * IEC 62056-21 request-mode readout (§6.3, §6.4), independent of the transport. The line runs 7E1;
 * the link sets that up, the session only changes the rate.
 * Mode C: request `/?[address]!` at 300 Bd -> identification -> option select `ACK 0 Z 0 CR LF`
 * (protocol control '0' = normal, Z = baud character, mode control '0' = data readout) -> both
 * sides change to Z's rate -> data message `STX ... ! CR LF ETX BCC`.
 * Mode B: both sides change to the identification's rate without an acknowledgement. Mode A: no
 * change. A meter that keeps answering at the old rate (it ignores the proposal) is detected when
 * no STX arrives at the new rate: the session changes back, reads on, retries once if it missed the
 * start, and from then on proposes the old rate.
 */

export interface D0SerialLink {
  /** Sends bytes; resolves once they have been transmitted (drained) at the current rate. */
  write(bytes: Buffer): Promise<void>;
  setBaudRate(baud: number): Promise<void>;
}

export interface D0SessionOptions {
  /** Device address for the request message (up to 32 characters); empty = any meter. */
  address?: string;
  /** Time from the start of one readout to the start of the next (ms), default 60 s. */
  pollIntervalMs?: number;
  /** Rate of the request and identification, default 300 Bd (IEC 62056-21 §6.1). */
  initialBaud?: number;
  /** Highest rate to select in mode C (optical heads may not do 19200), default 19200. */
  maxBaud?: number;
  /** Wait for the identification (ms); tr is at most 1500 ms (§6.4). Default 2000. */
  identificationTimeoutMs?: number;
  /** Wait for the STX of the data message after the option select (ms). Default 2000. */
  dataTimeoutMs?: number;
  /** Longest gap between characters of a message (ms); ta = 1500 ms (§6.4). */
  interCharacterTimeoutMs?: number;
  /**
   * Pause between the drained option select and the rate change (ms). Must stay below the meter's
   * minimum reaction time (200 ms, or 20 ms for a lower-case third prefix letter) or the first
   * characters at the new rate are lost; default half of it.
   */
  baudSwitchDelayMs?: number;
  maxFrameSize?: number;
  verifyBlockCheck?: boolean;
  /** The session's waits and time stamps (docs/architecture.md#clock). */
  clock?: Clock;
}

export type D0TimeoutPhase = 'identification' | 'data';

export interface D0SessionEvents {
  reading: [reading: Reading, frame: Buffer];
  rejected: [error: MeterDataError, frame: Buffer | undefined];
  timeout: [phase: D0TimeoutPhase];
  /** The meter did not answer at the proposed rate; the session uses `used` from now on. */
  'baud-fallback': [proposed: number, used: number];
  /** The link failed (write or rate change rejected); polling goes on. */
  'link-error': [error: Error];
}

export type D0PollOutcome =
  | { kind: 'reading'; reading: Reading; frame: Buffer }
  | { kind: 'rejected'; error: MeterDataError; frame?: Buffer }
  | { kind: 'timeout'; phase: D0TimeoutPhase }
  | { kind: 'stopped' };

type DataOutcome =
  | { kind: 'frame'; frame: Buffer }
  | { kind: 'rejected'; error: MeterDataError; frame?: Buffer }
  | { kind: 'no-stx' }
  | { kind: 'timeout'; phase: 'data' }
  | { kind: 'stopped' };

const LF = 0x0a;
const SLASH = 0x2f;
const ACK = '\x06';

export class D0RequestSession extends EventEmitter<D0SessionEvents> {
  lastIdentification: D0Identification | undefined;
  private readonly settings: Required<Omit<D0SessionOptions, 'baudSwitchDelayMs' | 'clock'>> &
    Pick<D0SessionOptions, 'baudSwitchDelayMs'>;
  private readonly inbox: ByteInbox;
  private readonly clock: Clock;
  private abort = new AbortController();
  private currentBaud: number | undefined;
  private ignoresBaud = false;
  private loop: Promise<void> | undefined;
  private cycle: Promise<D0PollOutcome> | undefined;

  constructor(
    private readonly link: D0SerialLink,
    options: D0SessionOptions = {},
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.settings = {
      address: options.address ?? '',
      pollIntervalMs: options.pollIntervalMs ?? 60_000,
      initialBaud: options.initialBaud ?? 300,
      maxBaud: options.maxBaud ?? 19200,
      identificationTimeoutMs: options.identificationTimeoutMs ?? 2000,
      dataTimeoutMs: options.dataTimeoutMs ?? 2000,
      interCharacterTimeoutMs: options.interCharacterTimeoutMs ?? 1500,
      baudSwitchDelayMs: options.baudSwitchDelayMs,
      maxFrameSize: options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE,
      verifyBlockCheck: options.verifyBlockCheck ?? true,
    };
    this.inbox = new ByteInbox(2 * this.settings.maxFrameSize, this.clock);
  }

  /** True once the meter was found to ignore the proposed rate (remembered for later polls). */
  get ignoresProposedBaud(): boolean {
    return this.ignoresBaud;
  }

  /** Bytes received from the meter. */
  receive(bytes: Buffer): void {
    this.inbox.push(bytes);
  }

  /**
   * One request/readout cycle; emits its outcome as an event too. Link failures reject. While a
   * cycle runs, further calls share it (the line carries one conversation at a time).
   */
  pollOnce(): Promise<D0PollOutcome> {
    if (this.cycle) return this.cycle;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.cycle = this.requestCycle(this.abort.signal, true)
      .then((outcome) => {
        this.report(outcome);
        return outcome;
      })
      .finally(() => {
        this.cycle = undefined;
      });
    return this.cycle;
  }

  /** Polls every `pollIntervalMs` until stop(). */
  start(): void {
    if (this.loop) return;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    const signal = this.abort.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        const started = this.clock.now();
        try {
          await this.pollOnce();
        } catch (error) {
          this.emit('link-error', error instanceof Error ? error : new Error(String(error)));
        }
        await pause(started + this.settings.pollIntervalMs - this.clock.now(), signal, this.clock);
      }
    })();
  }

  /** Ends polling; a cycle in progress ends at its next wait. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    this.loop = undefined;
  }

  private report(outcome: D0PollOutcome): void {
    if (outcome.kind === 'reading') this.emit('reading', outcome.reading, outcome.frame);
    else if (outcome.kind === 'rejected') this.emit('rejected', outcome.error, outcome.frame);
    else if (outcome.kind === 'timeout') this.emit('timeout', outcome.phase);
  }

  private async useBaud(baud: number): Promise<void> {
    if (this.currentBaud === baud) return;
    await this.link.setBaudRate(baud);
    this.currentBaud = baud;
  }

  private async requestCycle(signal: AbortSignal, mayRetry: boolean): Promise<D0PollOutcome> {
    const { initialBaud, address } = this.settings;
    await this.useBaud(initialBaud);
    this.inbox.clear();
    await this.link.write(Buffer.from(`/?${address.slice(0, 32)}!\r\n`, 'latin1'));
    const line = await this.readIdentificationLine(signal);
    if (!line) return signal.aborted ? { kind: 'stopped' } : { kind: 'timeout', phase: 'identification' };
    let identification: D0Identification;
    try {
      identification = parseIdentification(line.toString('latin1'));
    } catch (error) {
      return { kind: 'rejected', error: error as MeterDataError, frame: line };
    }
    this.lastIdentification = identification;
    await this.selectRate(identification, signal);
    let data = await this.readDataMessage(signal);
    if (data.kind === 'no-stx' && this.currentBaud !== initialBaud) {
      this.ignoresBaud = true;
      this.emit('baud-fallback', this.currentBaud!, initialBaud);
      await this.useBaud(initialBaud);
      data = await this.readDataMessage(signal);
      if (data.kind === 'no-stx' && mayRetry) {
        await this.waitForQuiet(signal);
        return this.requestCycle(signal, false);
      }
    }
    return this.outcomeOf(line, data);
  }

  /** Option select (mode C) and rate change (modes B, C), IEC 62056-21 §6.3.3, §6.4. */
  private async selectRate(identification: D0Identification, signal: AbortSignal): Promise<void> {
    const { initialBaud, maxBaud } = this.settings;
    const offered = identification.proposedBaud ?? initialBaud;
    if (identification.mode === 'C') {
      const wanted = this.ignoresBaud ? initialBaud : Math.min(offered, maxBaud);
      const baudChar = modeCBaudChar(wanted) ?? identification.baudChar;
      const rate = modeCBaudChar(wanted) ? wanted : offered;
      await this.link.write(Buffer.from(`${ACK}0${baudChar}0\r\n`, 'latin1'));
      if (rate === this.currentBaud) return;
      await pause(
        this.settings.baudSwitchDelayMs ?? identification.minReactionTimeMs / 2,
        signal,
        this.clock,
      );
      await this.useBaud(rate);
    } else if (identification.mode === 'B') {
      await this.useBaud(this.ignoresBaud ? initialBaud : offered);
    }
  }

  /** The identification line (from its '/' through LF), skipping echoed requests and noise. */
  private async readIdentificationLine(signal: AbortSignal): Promise<Buffer | undefined> {
    const deadline = this.clock.now() + this.settings.identificationTimeoutMs;
    let partial: Buffer = Buffer.alloc(0);
    while (true) {
      const chunk = await this.inbox.next(deadline - this.clock.now(), signal);
      if (!chunk) return undefined;
      let bytes = partial.length > 0 ? Buffer.concat([partial, chunk]) : chunk;
      let lf = bytes.indexOf(LF);
      while (lf >= 0) {
        const slash = bytes.lastIndexOf(SLASH, lf);
        const line = slash >= 0 ? bytes.subarray(slash, lf + 1) : undefined;
        if (line && !isRequestEcho(line.toString('latin1'))) {
          this.inbox.unshift(bytes.subarray(lf + 1));
          return Buffer.from(line);
        }
        bytes = bytes.subarray(lf + 1);
        lf = bytes.indexOf(LF);
      }
      partial = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 128)));
    }
  }

  /** The data message: STX must come within dataTimeoutMs, then characters at most ta apart. */
  private async readDataMessage(signal: AbortSignal): Promise<DataOutcome> {
    const framer = new D0Framer({ maxFrameSize: this.settings.maxFrameSize });
    const stxDeadline = this.clock.now() + this.settings.dataTimeoutMs;
    while (true) {
      const started = framer.pendingBytes > 0;
      const wait = started ? this.settings.interCharacterTimeoutMs : stxDeadline - this.clock.now();
      const chunk = await this.inbox.next(wait, signal);
      if (signal.aborted) return { kind: 'stopped' };
      if (!chunk) {
        if (!started) return { kind: 'no-stx' };
        const [event] = framer.flush();
        return event ? dataOutcomeOf(event) : { kind: 'timeout', phase: 'data' };
      }
      const [event] = framer.push(chunk);
      if (event) return dataOutcomeOf(event);
    }
  }

  /** Lets a readout sent at a rate we missed run out: returns after ta without characters. */
  private async waitForQuiet(signal: AbortSignal): Promise<void> {
    let drained = 0;
    while (drained <= this.settings.maxFrameSize) {
      const chunk = await this.inbox.next(this.settings.interCharacterTimeoutMs, signal);
      if (!chunk) return;
      drained += chunk.length;
    }
  }

  private outcomeOf(identificationLine: Buffer, data: DataOutcome): D0PollOutcome {
    if (data.kind === 'no-stx') return { kind: 'timeout', phase: 'data' };
    if (data.kind !== 'frame') return data;
    const frame = data.frame[0] === SLASH ? data.frame : Buffer.concat([identificationLine, data.frame]);
    const result = decodeD0Frame(frame, this.clock.now(), {
      verifyBlockCheck: this.settings.verifyBlockCheck,
    });
    if (result.ok) return { kind: 'reading', reading: result.reading, frame };
    return { kind: 'rejected', error: result.error, frame };
  }
}

function dataOutcomeOf(event: D0FramerEvent): DataOutcome {
  if (event.kind === 'frame') return { kind: 'frame', frame: event.frame };
  if (event.kind === 'truncated') {
    const error = new MeterDataError('parse', 'IEC 62056-21 data message cut off');
    return { kind: 'rejected', error, frame: event.frame };
  }
  const error = new MeterDataError('overflow', 'IEC 62056-21 data message exceeds the maximum frame size', {
    discarded: event.discarded,
  });
  return { kind: 'rejected', error };
}
