import { setTimeout as sleep } from 'node:timers/promises';
import type { SerialPort } from 'serialport';

/**
 * A meter at the far end of a pty pair, answering IEC 62056-21 requests with recorded bytes.
 * Mode C: request -> identification; option select (ACK) -> data message. Modes A and B: request ->
 * identification, then the data message without waiting for an acknowledgement.
 * `ignoresProposedBaud`: the meter stays at 300 Bd whatever the option select asks for. A pty has no
 * bit timing, so the fake sends what a UART at the proposed rate reads from 300 Bd characters: one
 * NUL (framing error) per character. An option select for 300 Bd ('0') is answered normally.
 */
export interface FakeMeterOptions {
  mode: 'A' | 'B' | 'C';
  /** Identification line without CR LF, e.g. '/ISk5MT174-0001'. */
  identification: string;
  /** Data message as the meter sends it (STX ... ETX BCC). */
  dataMessage: Buffer;
  /** When set, the meter answers only `/?<address>!`. */
  address?: string;
  ignoresProposedBaud?: boolean;
  /** Reaction time before answering (ms); IEC 62056-21 allows 20..1500. */
  reactionMs?: number;
}

export class FakeMeter {
  /** Request messages received, as text without CR LF. */
  readonly requests: string[] = [];
  /** Option select messages received, as text without CR LF. */
  readonly acknowledgements: string[] = [];
  private partial = '';
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly port: SerialPort,
    private readonly options: FakeMeterOptions,
  ) {
    port.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  private onData(chunk: Buffer): void {
    this.partial += chunk.toString('latin1');
    let lf = this.partial.indexOf('\n');
    while (lf >= 0) {
      const line = this.partial.slice(0, lf + 1).replace(/^\0+/, '');
      this.partial = this.partial.slice(lf + 1);
      this.busy = this.busy.then(() => this.answer(line.replace(/\r?\n$/, '')));
      lf = this.partial.indexOf('\n');
    }
  }

  private async answer(line: string): Promise<void> {
    if (line.startsWith('/?') && line.endsWith('!')) {
      this.requests.push(line);
      const address = line.slice(2, -1);
      if (this.options.address !== undefined && address !== this.options.address) return;
      await this.send(Buffer.from(`${this.options.identification}\r\n`, 'latin1'));
      if (this.options.mode !== 'C') await this.send(this.options.dataMessage);
    } else if (line.startsWith('\x06') && this.options.mode === 'C') {
      this.acknowledgements.push(line);
      const baudChar = line[2];
      const unreadable = this.options.ignoresProposedBaud === true && baudChar !== '0';
      await this.send(unreadable ? Buffer.alloc(this.options.dataMessage.length) : this.options.dataMessage);
    }
  }

  private async send(bytes: Buffer): Promise<void> {
    await sleep(this.options.reactionMs ?? 20);
    await new Promise<void>((resolve, reject) =>
      this.port.write(bytes, (error) => (error ? reject(error) : this.port.drain(() => resolve()))),
    );
  }
}
