import type { RegisterTable } from '../modbus-protocol/register-block.js';

/**
 * The Modbus PDU the slaves answer, shared by the TCP (MBAP) and the RTU (serial line) framing.
 * Modbus Application Protocol V1.1b3: function codes 03 Read Holding Registers (§6.3) and 04 Read
 * Input Registers (§6.4), request = function code, start address (2), quantity (2), quantity
 * 1..125; reply = function code, byte count, register bytes (big-endian words). Exceptions (§7):
 * function code | 0x80, then the exception code.
 */

export const READ_HOLDING_REGISTERS = 0x03;
export const READ_INPUT_REGISTERS = 0x04;

/** §7 exception codes. */
export const ILLEGAL_FUNCTION = 0x01;
export const ILLEGAL_DATA_ADDRESS = 0x02;
export const ILLEGAL_DATA_VALUE = 0x03;

/** §6.3 / §6.4: quantity of registers 1..125 (0x7D). */
export const MAX_QUANTITY = 125;

/**
 * What a slave reads registers from. `read` returns the wire bytes of `quantity` registers from
 * `start` (a view, never a copy), or an exception code: ILLEGAL_FUNCTION when the table does not
 * exist in this register map, ILLEGAL_DATA_ADDRESS when the range is not inside it.
 */
export interface RegisterSpace {
  /** Whether the map has this table at all (a function code for a missing one is illegal). */
  has(table: RegisterTable): boolean;
  read(table: RegisterTable, start: number, quantity: number): Buffer | number;
  /**
   * The request path's form of `read`: copies the registers straight into `target` at `at` and
   * returns 0, or returns the exception code `read` would (nothing copied). No view is created,
   * so answering a request allocates the reply and nothing else.
   */
  copyTo(table: RegisterTable, start: number, quantity: number, target: Buffer, at: number): number;
}

export function tableOf(functionCode: number): RegisterTable | undefined {
  if (functionCode === READ_HOLDING_REGISTERS) return 'holding';
  if (functionCode === READ_INPUT_REGISTERS) return 'input';
  return undefined;
}

/** The reply counters every slave keeps, whatever its framing. */
export class ReplyCounters {
  /** Requests answered (including exception replies). */
  requests = 0;
  /** Exception replies sent. */
  exceptions = 0;
  /** Exception replies by exception code (Modbus Application Protocol 1.1b3 §7). */
  readonly exceptionCodes = new Map<number, number>();

  /**
   * Counts a reply made by `answerPdu` with `header` bytes in front: an exception reply (§7, the
   * function code with bit 7 set) also under its exception code, the byte after the function code.
   */
  protected countReply(reply: Buffer, header: number): void {
    this.requests += 1;
    if ((reply[header]! & 0x80) === 0) return;
    this.exceptions += 1;
    const code = reply[header + 1]!;
    this.exceptionCodes.set(code, (this.exceptionCodes.get(code) ?? 0) + 1);
  }
}

/**
 * Answers the request PDU at buf[offset .. offset + length) from `space`: a fresh buffer with
 * `header` bytes free in front of the reply PDU and `trailer` bytes after it for the framing.
 */
export function answerPdu(
  space: RegisterSpace,
  buf: Buffer,
  offset: number,
  length: number,
  header: number,
  trailer: number,
): Buffer {
  const functionCode = buf[offset]!;
  const table = tableOf(functionCode);
  if (table === undefined) return exceptionReply(functionCode, ILLEGAL_FUNCTION, header, trailer);
  // The request PDU is exactly function code, start (2), quantity (2); §7: exception 03 also
  // covers a request whose implied length is wrong. A table the map lacks is exception 01 first
  // (`copyTo` reports it for a well-formed request, so the common case asks the space once).
  const quantity = length === 5 ? (buf[offset + 3]! << 8) | buf[offset + 4]! : 0;
  if (quantity < 1 || quantity > MAX_QUANTITY) {
    const code = space.has(table) ? ILLEGAL_DATA_VALUE : ILLEGAL_FUNCTION;
    return exceptionReply(functionCode, code, header, trailer);
  }
  const start = (buf[offset + 1]! << 8) | buf[offset + 2]!;
  // The reply is allocated before the range check: an exception is the rare case, and the
  // registers are then copied once, from the map into the reply.
  const reply = Buffer.allocUnsafe(header + 2 + quantity * 2 + trailer);
  const code = space.copyTo(table, start, quantity, reply, header + 2);
  if (code !== 0) return exceptionReply(functionCode, code, header, trailer);
  reply[header] = functionCode;
  reply[header + 1] = quantity * 2;
  return reply;
}

function exceptionReply(functionCode: number, code: number, header: number, trailer: number): Buffer {
  const reply = Buffer.allocUnsafe(header + 2 + trailer);
  reply[header] = (functionCode | 0x80) & 0xff;
  reply[header + 1] = code;
  return reply;
}

/** Exception 0x0B, gateway target device failed to respond (Modbus Application Protocol 1.1b3 §7). */
export const GATEWAY_TARGET_FAILED = 0x0b;

/** The exception reply for a request this gateway has no target for (an unmapped unit id). */
export function noTargetReply(buf: Buffer, offset: number, header: number, trailer: number): Buffer {
  return exceptionReply(buf[offset]!, GATEWAY_TARGET_FAILED, header, trailer);
}
