/** The parsed form of one DSMR P1 telegram, before it becomes a protocol-independent Reading. */

/** Identification line (IEC 62056-21 §6.3.14 identification message: /XXXZ\W identification). */
export interface DsmrHeader {
  /** The line without the leading '/' ("ISk5\2MT382-1000"). */
  raw: string;
  /** Three-letter manufacturer FLAG id as sent ("ISk"; a lower-case third letter is a timing flag). */
  flag: string;
  /** Baud rate identification character ('5'). */
  baudChar: string;
  /** Identification text after the optional '\' + enhanced-id character, trimmed ("MT382-1000"). */
  model: string;
}

/** One parenthesised value of a data object. */
export interface DsmrValue {
  /** Text between the parentheses as sent (line breaks of a value continued over lines kept). */
  raw: string;
  /** Numeric value when the text is a number (with or without '*unit'). */
  value?: number;
  /** Unit after '*' as sent ("kWh", "kVArh", "m3"), only with a numeric value. */
  unit?: string;
  /** ISO 8601 time with offset when the value is a valid YYMMDDhhmmssX timestamp. */
  timestamp?: string;
  /** Decoded text of a hex-encoded identifier or message when it is printable ASCII. */
  text?: string;
}

/** One COSEM data object line: OBIS reference A-B:C.D.E and its values. */
export interface DsmrObject {
  /** "A-B:C.D.E", groups in decimal ("1-0:1.8.1", "0-1:24.2.1"). */
  obis: string;
  /** OBIS group A: 0 abstract, 1 electricity. */
  medium: number;
  /** OBIS group B: channel (the M-Bus channel for 0-n:24.x objects). */
  channel: number;
  /** OBIS groups C.D.E ("1.8.1"), the key of Reading.values. */
  code: string;
  values: DsmrValue[];
  /** Source text of the object, continuation lines included (their line breaks kept). */
  line: string;
}

/** A line that could not be read as a data object, or an object that is suspicious; not fatal. */
export interface DsmrProblem {
  line: string;
  reason: string;
}

export interface DsmrTelegram {
  header: DsmrHeader;
  /** Every data object in order, known or not. */
  objects: DsmrObject[];
  problems: DsmrProblem[];
  /** Hex digits after '!' as sent; absent for DSMR < 4 telegrams. Checked by ./crc16-arc.ts. */
  crcField?: string;
}
