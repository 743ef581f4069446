import { readListEntry, readTime, requiredInteger } from './list-entry.js';
import {
  MESSAGE_TAG,
  type SmlAttentionResponse,
  type SmlCloseResponse,
  type SmlGetListResponse,
  type SmlListEntry,
  type SmlMessage,
  type SmlOpenResponse,
  type SmlOtherMessage,
  type SmlTime,
} from './message-types.js';
import { parseError, TL_LIST, type TlReader } from './tl.js';

/**
 * Reads SML_Message bodies (SML 1.04). Octet string fields are kept as offsets into the frame
 * and sliced when read: a meter repeats transaction ids, file ids and list names in every frame,
 * and nothing downstream looks at them.
 */

/** The header of SML_Message, read before its body. */
export interface HeaderFields {
  source: Buffer;
  /** Offsets of the transactionId octets (-1 when not set). */
  transactionIdStart: number;
  transactionIdEnd: number;
  groupNo: number;
  abortOnError: number;
}

/** Octet strings as start/end offset pairs into `source`; a start of -1 marks "not set". */
abstract class ParsedMessage {
  crcOk: boolean | undefined = undefined;
  readonly groupNo: number;
  readonly abortOnError: number;
  protected readonly source: Buffer;
  private readonly transactionIdStart: number;
  private readonly transactionIdEnd: number;

  constructor(
    header: HeaderFields,
    protected readonly spans: readonly number[],
  ) {
    this.source = header.source;
    this.groupNo = header.groupNo;
    this.abortOnError = header.abortOnError;
    this.transactionIdStart = header.transactionIdStart;
    this.transactionIdEnd = header.transactionIdEnd;
  }

  get transactionId(): Buffer | undefined {
    return slice(this.source, this.transactionIdStart, this.transactionIdEnd);
  }

  /** The octet string of span `index`. */
  protected octets(index: number): Buffer | undefined {
    return slice(this.source, this.spans[2 * index]!, this.spans[2 * index + 1]!);
  }
}

function slice(source: Buffer, start: number, end: number): Buffer | undefined {
  return start < 0 ? undefined : source.subarray(start, end);
}

/** Reads an optional octet string into `spans` as start/end pair number `index`. */
function readSpan(reader: TlReader, spans: number[], index: number, what: string): void {
  const start = reader.readOctetsOffset(what);
  spans[2 * index] = start;
  spans[2 * index + 1] = start < 0 ? -1 : start + reader.length;
}

/** Room for the start/end pairs of up to four octet strings, allocated once per message. */
const newSpans = (): number[] => [-1, -1, -1, -1, -1, -1, -1, -1];

class OpenResponse extends ParsedMessage implements SmlOpenResponse {
  readonly type = 'OpenResponse';

  constructor(
    header: HeaderFields,
    spans: readonly number[],
    readonly refTime: SmlTime | undefined,
    readonly smlVersion: number | undefined,
  ) {
    super(header, spans);
  }

  get codepage(): Buffer | undefined {
    return this.octets(0);
  }

  get clientId(): Buffer | undefined {
    return this.octets(1);
  }

  get reqFileId(): Buffer | undefined {
    return this.octets(2);
  }

  get serverId(): Buffer | undefined {
    return this.octets(3);
  }
}

class GetListResponse extends ParsedMessage implements SmlGetListResponse {
  readonly type = 'GetListResponse';

  constructor(
    header: HeaderFields,
    spans: readonly number[],
    readonly actSensorTime: SmlTime | undefined,
    readonly entries: SmlListEntry[],
    readonly actGatewayTime: SmlTime | undefined,
  ) {
    super(header, spans);
  }

  get clientId(): Buffer | undefined {
    return this.octets(0);
  }

  get serverId(): Buffer | undefined {
    return this.octets(1);
  }

  get listName(): Buffer | undefined {
    return this.octets(2);
  }
}

class CloseResponse extends ParsedMessage implements SmlCloseResponse {
  readonly type = 'CloseResponse';
}

class AttentionResponse extends ParsedMessage implements SmlAttentionResponse {
  readonly type = 'AttentionResponse';

  get serverId(): Buffer | undefined {
    return this.octets(0);
  }

  get attentionNo(): Buffer | undefined {
    return this.octets(1);
  }

  get message(): string | undefined {
    return this.octets(2)?.toString('latin1');
  }
}

class OtherMessage extends ParsedMessage implements SmlOtherMessage {
  readonly type = 'Other';

  constructor(
    header: HeaderFields,
    readonly tag: number,
  ) {
    super(header, []);
  }
}

/** Reads SML_MessageBody (a list of tag and content) after the message header. */
export function readBody(reader: TlReader, header: HeaderFields): SmlMessage {
  reader.expectList(2, 'SML_MessageBody');
  const tag = requiredInteger(reader, 'message tag');
  const spans = newSpans();
  switch (tag) {
    case MESSAGE_TAG.openResponse: {
      reader.expectList(6, 'OpenResponse');
      readSpan(reader, spans, 0, 'codepage');
      readSpan(reader, spans, 1, 'clientId');
      readSpan(reader, spans, 2, 'reqFileId');
      readSpan(reader, spans, 3, 'serverId');
      const refTime = readTime(reader);
      return new OpenResponse(header, spans, refTime, reader.readSmallInteger('smlVersion') ?? undefined);
    }
    case MESSAGE_TAG.getListResponse:
      return readGetListResponse(reader, header);
    case MESSAGE_TAG.closeResponse:
      reader.expectList(1, 'CloseResponse');
      reader.skipElement();
      return new CloseResponse(header, spans);
    case MESSAGE_TAG.attentionResponse:
      reader.expectList(4, 'AttentionResponse');
      readSpan(reader, spans, 0, 'serverId');
      readSpan(reader, spans, 1, 'attentionNo');
      readSpan(reader, spans, 2, 'attentionMsg');
      reader.skipElement();
      return new AttentionResponse(header, spans);
    default:
      reader.skipElement();
      return new OtherMessage(header, tag);
  }
}

function readGetListResponse(reader: TlReader, header: HeaderFields): SmlGetListResponse {
  reader.expectList(7, 'GetListResponse');
  const spans = newSpans();
  readSpan(reader, spans, 0, 'clientId');
  readSpan(reader, spans, 1, 'serverId');
  readSpan(reader, spans, 2, 'listName');
  const actSensorTime = readTime(reader);
  const listOffset = reader.offset;
  if (reader.readTl() !== TL_LIST) throw parseError('GetListResponse valList is not a list', listOffset);
  const entries: SmlListEntry[] = [];
  for (let count = reader.length; count > 0; count--) entries.push(readListEntry(reader));
  reader.skipElement();
  return new GetListResponse(header, spans, actSensorTime, entries, readTime(reader));
}
