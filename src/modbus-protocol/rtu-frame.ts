import { crc16Modbus } from '../checksum/crc16.js';

/**
 * Modbus RTU framing on a serial line (Modbus over Serial Line Specification V1.02, §2.5.1), the
 * same for a master and a slave:
 *
 * - RTU frame = address (1) + PDU + CRC-16 (2, low byte first).
 * - CRC (§2.5.1.2, Appendix B): polynomial 0xA001 (reflected 0x8005), initial 0xFFFF, no final
 *   XOR; a frame with a wrong CRC is discarded.
 * - Frame delimiting (§2.5.1.1): a silence of at least 3.5 character times ends a frame; above
 *   19200 baud the specification fixes it at 1.750 ms. A character is start + 8 data + parity +
 *   stop bits.
 */

/** Appends the CRC (low byte first) to an RTU frame whose last two bytes are reserved for it. */
export function sealFrame(frame: Buffer): Buffer {
  const crc = crc16Modbus(frame, 0, frame.length - 2);
  frame.writeUInt16LE(crc, frame.length - 2);
  return frame;
}

/** Whether the `length` bytes of `buf` from `offset` end in their own CRC (low byte first). */
export function crcMatches(buf: Buffer, offset: number, length: number): boolean {
  return crc16Modbus(buf, offset, offset + length - 2) === buf.readUInt16LE(offset + length - 2);
}

/** Character time in ms for a line: start bit + 8 data bits + parity bit + stop bits. */
export function characterMs(baudRate: number, parity: 'none' | 'even' | 'odd', stopBits: number): number {
  return ((1 + 8 + (parity === 'none' ? 0 : 1) + stopBits) * 1000) / baudRate;
}

/** §2.5.1.1: t3.5 in ms, 1.750 ms fixed above 19200 baud. */
export function interFrameMs(baudRate: number, parity: 'none' | 'even' | 'odd', stopBits: number): number {
  return baudRate > 19200 ? 1.75 : 3.5 * characterMs(baudRate, parity, stopBits);
}
