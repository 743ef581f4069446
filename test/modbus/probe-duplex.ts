import { Duplex } from 'node:stream';

/**
 * The client end of a connection for ModbusSlave.handle(): bytes the test sends come out of the
 * duplex's readable side, bytes the slave writes are collected. No socket involved.
 */
export class ProbeDuplex extends Duplex {
  private readonly chunks: Buffer[] = [];

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    done();
  }

  /** Everything the slave wrote so far. */
  get written(): Buffer {
    return Buffer.concat(this.chunks);
  }

  send(...chunks: Buffer[]): void {
    for (const chunk of chunks) this.push(chunk);
  }
}

/** Lets pending stream events run (data delivery, writes, end/destroy). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** MBAP + PDU: transaction id, protocol id, length (unit + PDU), unit id, then the PDU bytes. */
export function adu(tid: number, unit: number, pdu: number[], protocol = 0, length = pdu.length + 1): Buffer {
  const frame = Buffer.alloc(7 + pdu.length);
  frame.writeUInt16BE(tid, 0);
  frame.writeUInt16BE(protocol, 2);
  frame.writeUInt16BE(length, 4);
  frame[6] = unit;
  Buffer.from(pdu).copy(frame, 7);
  return frame;
}

/** FC 04 request PDU: function code, start address, quantity (Modbus Application Protocol §6.4). */
export function readInput(start: number, quantity: number, functionCode = 0x04): number[] {
  return [functionCode, start >> 8, start & 0xff, quantity >> 8, quantity & 0xff];
}
