/**
 * ASCII code points by name, for the parsers that compare bytes (or char codes) one at a time:
 * the IEC 62056-21 and DSMR framers and parsers (control characters STX, ETX, ACK and the line
 * ends of ISO/IEC 646), the OBIS address reader and the HTTP auth-parameter lexer (RFC 9110 §5.6).
 */

export const STX = 0x02;
export const ETX = 0x03;
export const ACK = 0x06;
export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const BANG = 0x21;
export const QUOTE = 0x22;
export const HASH = 0x23;
export const AMPERSAND = 0x26;
export const OPEN_PAREN = 0x28;
export const CLOSE_PAREN = 0x29;
export const STAR = 0x2a;
export const COMMA = 0x2c;
export const DASH = 0x2d;
export const DOT = 0x2e;
export const SLASH = 0x2f;
export const COLON = 0x3a;
export const EQUALS = 0x3d;
export const BACKSLASH = 0x5c;
