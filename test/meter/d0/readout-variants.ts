/**
 * Readouts of the same meter with other values: what a meter sends from one readout to the next
 * (same data sets, values of the same width), for the layout tests and bench/d0-parse.ts.
 */

/**
 * `readout` with every digit run in the value part of every `(...)` group (before a '*' unit;
 * parts separated by '&' or '#') replaced by `change(run)`, which keeps its length, and the BCC
 * after the ETX (IEC 62056-21 §6.3: XOR after STX through ETX) computed anew when there is one.
 */
export function withChangedValues(readout: Buffer, change: (digits: string) => string): Buffer {
  const text = readout.toString('latin1').replace(/\(([^()]*)\)/g, (_group, content: string) => {
    const parts = content.split(/([&#])/).map((part, k) => {
      if (k % 2 === 1) return part; // a separator
      const star = part.indexOf('*');
      const value = star < 0 ? part : part.slice(0, star);
      return value.replace(/\d+/g, change) + (star < 0 ? '' : part.slice(star));
    });
    return `(${parts.join('')})`;
  });
  const bytes = Buffer.from(text, 'latin1');
  withBlockCheck(bytes);
  return bytes;
}

/** Sets the BCC byte after the first ETX after the first STX to the block check, when present. */
export function withBlockCheck(bytes: Buffer): Buffer {
  const stx = bytes.indexOf(0x02);
  const etx = stx < 0 ? -1 : bytes.indexOf(0x03, stx + 1);
  if (etx < 0 || etx + 1 >= bytes.length) return bytes;
  let bcc = 0;
  for (let i = stx + 1; i <= etx; i++) bcc ^= bytes[i]!;
  bytes[etx + 1] = bcc;
  return bytes;
}

/** A change for withChangedValues: the run as a number increased by `n`, wrapping within its width. */
export function bumpedBy(n: number): (digits: string) => string {
  return (digits) => {
    const width = BigInt(digits.length);
    return ((BigInt(digits) + BigInt(n)) % 10n ** width).toString().padStart(digits.length, '0');
  };
}

/** `count` readouts of the meter that sent `readout`, the n-th with its value digits bumped by n. */
export function readoutStream(readout: Buffer, count: number): Buffer[] {
  return Array.from({ length: count }, (_, n) => withChangedValues(readout, bumpedBy(n)));
}

/** A byte-level change of a readout; `at` is taken modulo length + 1 (a flip past the end does nothing). */
export type ByteEdit =
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'insert'; at: number; bytes: number[] }
  | { kind: 'delete'; at: number; length: number };

/** A copy of `readout` with `edit` applied. */
export function withByteEdit(readout: Buffer, edit: ByteEdit): Buffer {
  const at = edit.at % (readout.length + 1);
  if (edit.kind === 'insert')
    return Buffer.concat([readout.subarray(0, at), Buffer.from(edit.bytes), readout.subarray(at)]);
  if (edit.kind === 'delete')
    return Buffer.concat([readout.subarray(0, at), readout.subarray(at + edit.length)]);
  const flipped = Buffer.from(readout);
  if (at < flipped.length) flipped[at] = edit.byte;
  return flipped;
}
