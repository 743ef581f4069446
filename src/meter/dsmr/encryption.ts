import { createDecipheriv } from 'node:crypto';
import { MeterDataError, type DecodeResult, type MeterDecoder } from '../decoder.js';

/**
 * Encrypted DSMR telegrams as the Luxembourg Smarty meters send them (Smarty P1 companion
 * specification, DLMS/COSEM Green Book general-glo-ciphering APDU):
 *
 *   0xDB | 0x08 | system title (8) | length (BER) | SC 0x30 | frame counter (4, BE) | ciphertext | tag (12)
 *
 * `length` counts everything after itself (SC, frame counter, ciphertext, tag). The cipher is
 * AES-128-GCM with IV = system title + frame counter and AAD = SC + authentication key; Smarty
 * meters use the fixed authentication key 00112233445566778899AABBCCDDEEFF. The plaintext is an
 * ordinary DSMR telegram ('/' .. '!CRC').
 */

const GENERAL_GLO_CIPHERING = 0xdb;
const SYSTEM_TITLE_LENGTH = 8;
/** Security control byte: authenticated and encrypted, security suite 0 (AES-GCM-128). */
const SECURITY_CONTROL_AUTH_ENC = 0x30;
const FRAME_COUNTER_LENGTH = 4;
const TAG_LENGTH = 12;
const KEY_HEX = /^[0-9a-fA-F]{32}$/;
/** Fixed authentication key of Smarty meters (AAD part). */
export const SMARTY_AUTHENTICATION_KEY: Buffer = Buffer.from('00112233445566778899AABBCCDDEEFF', 'hex');
/** Longest encrypted APDU accepted; a Smarty telegram is about 1 KiB. */
export const MAX_ENCRYPTED_FRAME_BYTES = 16 * 1024;

export interface SmartyFrame {
  systemTitle: Buffer;
  securityControl: number;
  frameCounter: number;
  ciphertext: Buffer;
  tag: Buffer;
}

/** BER length at `offset`: value and the number of bytes it takes; undefined when incomplete or unsupported. */
function readBerLength(
  bytes: Buffer,
  offset: number,
): { value: number; size: number } | 'incomplete' | 'invalid' {
  if (offset >= bytes.length) return 'incomplete';
  const first = bytes[offset]!;
  if (first < 0x80) return { value: first, size: 1 };
  const count = first & 0x7f;
  if (count === 0 || count > 2) return 'invalid';
  if (offset + count >= bytes.length) return 'incomplete';
  let value = 0;
  for (let i = 1; i <= count; i++) value = value * 256 + bytes[offset + i]!;
  return { value, size: 1 + count };
}

/** Offset of the security control byte and the total APDU size, as far as `bytes` shows them. */
function measure(bytes: Buffer): { headerEnd: number; total: number } | 'incomplete' | 'invalid' {
  if (bytes.length < 2) return 'incomplete';
  if (bytes[0] !== GENERAL_GLO_CIPHERING || bytes[1] !== SYSTEM_TITLE_LENGTH) return 'invalid';
  const length = readBerLength(bytes, 2 + SYSTEM_TITLE_LENGTH);
  if (typeof length === 'string') return length;
  if (length.value < 1 + FRAME_COUNTER_LENGTH + TAG_LENGTH) return 'invalid';
  const headerEnd = 2 + SYSTEM_TITLE_LENGTH + length.size;
  const total = headerEnd + length.value;
  if (total > MAX_ENCRYPTED_FRAME_BYTES) return 'invalid';
  return { headerEnd, total };
}

/** Splits one complete general-glo-ciphering APDU into its parts; throws MeterDataError 'parse'. */
export function parseSmartyFrame(frame: Buffer): SmartyFrame {
  const size = measure(frame);
  if (size === 'incomplete' || size === 'invalid' || size.total !== frame.length) {
    throw new MeterDataError(
      'parse',
      'not a general-glo-ciphering APDU (0xDB, 8-byte system title, length)',
      {
        length: frame.length,
      },
    );
  }
  const securityControl = frame[size.headerEnd]!;
  if (securityControl !== SECURITY_CONTROL_AUTH_ENC) {
    throw new MeterDataError('parse', `unsupported security control byte 0x${securityControl.toString(16)}`, {
      securityControl,
    });
  }
  const counterAt = size.headerEnd + 1;
  return {
    systemTitle: frame.subarray(2, 2 + SYSTEM_TITLE_LENGTH),
    securityControl,
    frameCounter: frame.readUInt32BE(counterAt),
    ciphertext: frame.subarray(counterAt + FRAME_COUNTER_LENGTH, frame.length - TAG_LENGTH),
    tag: frame.subarray(frame.length - TAG_LENGTH),
  };
}

/**
 * Decrypts one encrypted Smarty telegram with the meter's 16-byte key (32 hex digits) and returns
 * the plain DSMR telegram. Throws MeterDataError: 'parse' for a malformed APDU, 'encryption' for a
 * missing or malformed key and for a tag that does not verify (wrong key or altered frame).
 */
export function decryptSmartyFrame(frame: Buffer, keyHex: string): Buffer {
  const parts = parseSmartyFrame(frame);
  if (!KEY_HEX.test(keyHex)) {
    throw new MeterDataError('encryption', 'encryption key must be 32 hex digits (AES-128)', {
      reason: keyHex ? 'malformed key' : 'key required',
    });
  }
  const iv = Buffer.alloc(SYSTEM_TITLE_LENGTH + FRAME_COUNTER_LENGTH);
  parts.systemTitle.copy(iv, 0);
  iv.writeUInt32BE(parts.frameCounter, SYSTEM_TITLE_LENGTH);
  const decipher = createDecipheriv('aes-128-gcm', Buffer.from(keyHex, 'hex'), iv, {
    authTagLength: TAG_LENGTH,
  });
  decipher.setAAD(Buffer.concat([Buffer.of(parts.securityControl), SMARTY_AUTHENTICATION_KEY]));
  decipher.setAuthTag(parts.tag);
  const plain = decipher.update(parts.ciphertext);
  try {
    return Buffer.concat([plain, decipher.final()]);
  } catch {
    throw new MeterDataError(
      'encryption',
      'GCM tag does not verify: wrong encryption key or altered telegram',
      {
        reason: 'wrong key',
        frameCounter: parts.frameCounter,
      },
    );
  }
}

/**
 * Cuts general-glo-ciphering APDUs out of a byte stream. Bytes before a plausible header
 * (0xDB 0x08, BER length within bounds, security control 0x30) are skipped; memory is bounded by
 * MAX_ENCRYPTED_FRAME_BYTES.
 */
export class SmartyFramer {
  private pending: Buffer = Buffer.alloc(0);

  /** Bytes held for an APDU that has begun (a plausible header) but is not complete yet. */
  get pendingBytes(): number {
    return this.pending.length;
  }

  /** Complete APDUs found so far, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    for (;;) {
      const start = this.pending.indexOf(GENERAL_GLO_CIPHERING);
      if (start < 0) {
        this.pending = Buffer.alloc(0);
        return frames;
      }
      if (start > 0) this.pending = this.pending.subarray(start);
      const size = measure(this.pending);
      if (size === 'incomplete') return frames;
      if (
        size === 'invalid' ||
        (this.pending.length > size.headerEnd && this.pending[size.headerEnd] !== SECURITY_CONTROL_AUTH_ENC)
      ) {
        this.pending = this.pending.subarray(1);
        continue;
      }
      if (this.pending.length < size.total) return frames;
      frames.push(Buffer.from(this.pending.subarray(0, size.total)));
      this.pending = this.pending.subarray(size.total);
    }
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
  }
}

/**
 * Wraps the plain DSMR decoder so encrypted (Smarty) and plain telegrams are both understood.
 * Until the stream shows which kind it carries, bytes go to both; the first valid plain telegram
 * or the first encrypted APDU decides. Encrypted APDUs without a key, or whose tag fails, become
 * 'encryption' rejections (meter status KEY REQUIRED / ENCRYPTION KEY).
 */
export function withDsmrEncryption(plain: MeterDecoder, keyHex: string | undefined): MeterDecoder {
  const framer = new SmartyFramer();
  let kind: 'unknown' | 'plain' | 'encrypted' = 'unknown';

  const decrypted = (frame: Buffer, receivedAt: number): DecodeResult[] => {
    if (!keyHex) {
      const error = new MeterDataError('encryption', 'encrypted telegram but no meter.encryption_key set', {
        reason: 'key required',
      });
      return [{ ok: false, error, frame }];
    }
    let telegram: Buffer;
    try {
      telegram = decryptSmartyFrame(frame, keyHex);
    } catch (error) {
      return [{ ok: false, error: error as MeterDataError, frame }];
    }
    return plain.push(telegram, receivedAt);
  };

  return {
    get protocol() {
      return plain.protocol;
    },
    push(chunk: Buffer, receivedAt: number): DecodeResult[] {
      if (kind === 'plain') return plain.push(chunk, receivedAt);
      const results: DecodeResult[] = [];
      for (const frame of framer.push(chunk)) {
        if (kind === 'unknown') plain.reset();
        kind = 'encrypted';
        results.push(...decrypted(frame, receivedAt));
      }
      if (kind === 'encrypted') return results;
      // Undecided: the plain decoder gets every byte before a possible APDU in progress (binary
      // APDU bytes would only make false frames); a plain telegram that shares a chunk with a
      // stray 0xDB after it is still decoded.
      const held = Math.min(framer.pendingBytes, chunk.length);
      const plainResults = plain.push(chunk.subarray(0, chunk.length - held), receivedAt);
      if (plainResults.some((result) => result.ok)) {
        kind = 'plain';
        framer.reset();
      }
      return plainResults;
    },
    reset(): void {
      plain.reset();
      framer.reset();
    },
  };
}
