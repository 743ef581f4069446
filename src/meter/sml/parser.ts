import { MeterDataError } from '../decoder.js';
import { crc16Kermit, crc16X25 } from '../../checksum/crc16.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import type { SmlMessage } from './message-types.js';
import { readBody, type HeaderFields } from './messages.js';
import { requiredInteger } from './list-entry.js';
import { END_OF_SML_MESSAGE, parseError, TlReader } from './tl.js';
import { isTransportFrame, transportPayload } from './transport.js';

export { formatObis, obisNumber } from './message-types.js';
export type {
  SmlAttentionResponse,
  SmlCloseResponse,
  SmlGetListResponse,
  SmlListEntry,
  SmlMessage,
  SmlOpenResponse,
  SmlOtherMessage,
  SmlTime,
} from './message-types.js';

/** The messages of one SML file (one transport frame). */
export interface SmlFrame {
  messages: SmlMessage[];
}

export interface SmlParseOptions {
  /** Checksum of the transport frame and of each message (default X-25; Holley: 'kermit'). */
  crc?: SmlCrcAlgorithm;
  /**
   * Message crc16 handling: 'record' (default) sets `crcOk` on each message, 'require' also
   * rejects a mismatch (kind 'crc'), 'skip' leaves `crcOk` undefined (the decoder: the frame CRC
   * already covers every message byte).
   */
  messageCrc?: MessageCrcPolicy;
}

export type MessageCrcPolicy = 'record' | 'require' | 'skip';

/**
 * Parses one SML file: either a complete transport v1 frame (the frame CRC is checked, escapes
 * and padding removed) or the bare message sequence.
 *
 * Message CRC: the crc16 field covers the message from its TL byte up to the field. With X-25 the
 * Unsigned16 holds the checksum low byte first (as on the transport frame); the Holley Kermit
 * variant holds it high byte first. A mismatch is recorded (`crcOk: false`) and only rejects the
 * frame with messageCrc 'require': a matching frame CRC already covers those bytes, and captures
 * whose identifiers were anonymised (public test captures) carry stale message CRCs.
 * Throws MeterDataError: kind 'crc' for a checksum mismatch, 'parse' for anything malformed.
 */
export function parseSmlFrame(frame: Buffer, options: SmlParseOptions = {}): SmlFrame {
  const crc = options.crc ?? 'x25';
  const policy = options.messageCrc ?? 'record';
  if (!isTransportFrame(frame)) return { messages: parseSmlMessages(frame, crc, policy) };
  const { data, start, end } = transportPayload(frame, crc);
  return { messages: parseSmlMessages(data, crc, policy, start, end) };
}

/** Parses a sequence of SML messages; fill bytes 0x00 between and after messages are skipped. */
export function parseSmlMessages(
  data: Buffer,
  crc: SmlCrcAlgorithm,
  messageCrc: MessageCrcPolicy,
  start = 0,
  end = data.length,
): SmlMessage[] {
  const reader = new TlReader(data, start, end);
  const messages: SmlMessage[] = [];
  while (reader.remaining > 0) {
    if (reader.peekByte() === END_OF_SML_MESSAGE) {
      reader.offset += 1;
      continue;
    }
    messages.push(readMessage(reader, crc, messageCrc));
  }
  if (messages.length === 0) throw parseError('no SML message', start);
  return messages;
}

function readMessage(reader: TlReader, crc: SmlCrcAlgorithm, policy: MessageCrcPolicy): SmlMessage {
  const start = reader.offset;
  reader.expectList(6, 'SML_Message');
  const transactionIdStart = reader.readOctetsOffset('transactionId');
  const transactionIdEnd = transactionIdStart < 0 ? -1 : transactionIdStart + reader.length;
  const groupNo = requiredInteger(reader, 'groupNo');
  const abortOnError = requiredInteger(reader, 'abortOnError');
  const header: HeaderFields = {
    source: reader.data,
    transactionIdStart,
    transactionIdEnd,
    groupNo,
    abortOnError,
  };
  const message = readBody(reader, header);
  const crcOffset = reader.offset;
  const stored = reader.readSmallInteger('crc16');
  if (policy !== 'skip') {
    const checksum = messageChecksum(reader.data, start, crcOffset, crc);
    message.crcOk = stored === checksum;
    if (!message.crcOk && policy === 'require') {
      throw new MeterDataError('crc', `SML: message CRC mismatch at offset ${start}`, {
        offset: start,
        checksum,
      });
    }
  }
  if (reader.peekByte() !== END_OF_SML_MESSAGE)
    throw parseError('SML_Message lacks EndOfSmlMsg', reader.offset);
  reader.offset += 1;
  return message;
}

/** The crc16 field value a message from `start` to `end` should carry. */
function messageChecksum(data: Buffer, start: number, end: number, algorithm: SmlCrcAlgorithm): number {
  if (algorithm === 'kermit') return crc16Kermit(data, start, end);
  const checksum = crc16X25(data, start, end);
  return ((checksum & 0xff) << 8) | (checksum >>> 8);
}
