import type { SmlElement } from './tl.js';

/**
 * SML messages as parsed (SML 1.04, "SML_Message" and "SML_MessageBody"): the responses a meter
 * pushes on its info interface. Requests, profile and parameter responses keep only their tag.
 * Octet strings are views into the frame buffer.
 */

export const MESSAGE_TAG = {
  openResponse: 0x0101,
  closeResponse: 0x0201,
  getListResponse: 0x0701,
  attentionResponse: 0xff01,
} as const;

/** SML_Time: a CHOICE of secIndex (1), timestamp (2, Unix seconds UTC) or localTimestamp (3). */
export interface SmlTime {
  kind: 'secIndex' | 'timestamp' | 'localTimestamp';
  seconds: number;
  /** localTimestamp only: offset of local time to UTC and the daylight saving offset, minutes. */
  localOffsetMinutes?: number;
  seasonOffsetMinutes?: number;
}

/** SML_ListEntry of a GetList.Res valList. */
export interface SmlListEntry {
  /** Usually a 6-byte OBIS code A B C D E F (see formatObis). */
  readonly objName: Buffer;
  /** A 6-byte objName as the number A·2^40 + B·2^32 + ... + F (see obisNumber), else undefined. */
  readonly obisCode: number | undefined;
  readonly status?: number | bigint;
  readonly valTime?: SmlTime;
  /** DLMS/COSEM unit code (IEC 62056-62), see dlms-units.ts. */
  readonly unit?: number;
  /** Power of ten the value is multiplied by. */
  readonly scaler?: number;
  readonly value: SmlElement;
}

export interface MessageHeader {
  readonly transactionId: Buffer | undefined;
  readonly groupNo: number;
  readonly abortOnError: number;
  /** Whether the message's own crc16 matched; undefined when not checked (see parseSmlFrame). */
  crcOk: boolean | undefined;
}

export interface SmlOpenResponse extends MessageHeader {
  readonly type: 'OpenResponse';
  readonly codepage?: Buffer;
  readonly clientId?: Buffer;
  readonly reqFileId?: Buffer;
  readonly serverId?: Buffer;
  readonly refTime?: SmlTime;
  readonly smlVersion?: number;
}

export interface SmlGetListResponse extends MessageHeader {
  readonly type: 'GetListResponse';
  readonly clientId?: Buffer;
  readonly serverId?: Buffer;
  readonly listName?: Buffer;
  readonly actSensorTime?: SmlTime;
  readonly entries: SmlListEntry[];
  readonly actGatewayTime?: SmlTime;
}

export interface SmlCloseResponse extends MessageHeader {
  readonly type: 'CloseResponse';
}

export interface SmlAttentionResponse extends MessageHeader {
  readonly type: 'AttentionResponse';
  readonly serverId?: Buffer;
  /** Attention number, an OBIS-like 6-byte code (81 81 c7 c7 fd 00 = "OK", 81 81 c7 c7 fe xx = errors). */
  readonly attentionNo?: Buffer;
  readonly message?: string;
}

/** Any other message (requests, profile lists, parameter trees): skipped, tag kept. */
export interface SmlOtherMessage extends MessageHeader {
  readonly type: 'Other';
  readonly tag: number;
}

export type SmlMessage =
  SmlOpenResponse | SmlGetListResponse | SmlCloseResponse | SmlAttentionResponse | SmlOtherMessage;

/** `A-B:C.D.E*F` of a 6-byte OBIS code (IEC 62056-61). */
export function formatObis(code: Buffer): string {
  return `${code[0]}-${code[1]}:${code[2]}.${code[3]}.${code[4]}*${code[5]}`;
}

/** A 6-byte OBIS code A-B:C.D.E*F as one number, the form of SmlListEntry.obisCode. */
export function obisNumber(a: number, b: number, c: number, d: number, e: number, f: number): number {
  return ((((a * 256 + b) * 256 + c) * 256 + d) * 256 + e) * 256 + f;
}
