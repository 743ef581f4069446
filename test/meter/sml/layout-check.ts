import assert from 'node:assert/strict';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import type { SmlCrcAlgorithm } from '../../../src/meter/sml/crc16-x25.js';
import { createSmlDecoder } from '../../../src/meter/sml/decoder.js';
import type { Reading } from '../../../src/reading/reading.js';

/**
 * The fast path against the parser: a decoder that learnt a layout from some frames decodes the
 * next bytes exactly as a fresh decoder (which parses its first frame) does.
 */

const RECEIVED_AT = 1_700_000_000_000;

/** What a decode result says: the Reading, or the kind of rejection. */
export type Outcome = { ok: true; reading: Reading } | { ok: false; kind: string };

export function outcomes(results: readonly DecodeResult[]): Outcome[] {
  return results.map((result) =>
    result.ok ? { ok: true, reading: result.reading } : { ok: false, kind: result.error.kind },
  );
}

/** The results of a fresh decoder: every frame in `bytes` parsed (none learnt before it). */
export function parsedOutcomes(bytes: Buffer, crc: SmlCrcAlgorithm = 'x25'): Outcome[] {
  return outcomes(createSmlDecoder({ crc }).push(bytes, RECEIVED_AT));
}

/**
 * Decodes `learnt` frames, then `bytes`; returns the outcomes of `bytes` and how many of its frames
 * the learnt layout read.
 */
export function outcomesAfter(
  learnt: readonly Buffer[],
  bytes: Buffer,
  crc: SmlCrcAlgorithm = 'x25',
): { outcomes: Outcome[]; byLayout: number } {
  const decoder = createSmlDecoder({ crc });
  for (const frame of learnt) decoder.push(frame, RECEIVED_AT);
  const before = decoder.stats.framesByLayout;
  const results = outcomes(decoder.push(bytes, RECEIVED_AT));
  return { outcomes: results, byLayout: decoder.stats.framesByLayout - before };
}

/** Asserts that after `learnt`, `bytes` decode as a fresh decoder decodes them; returns byLayout. */
export function assertSameAsParser(
  learnt: readonly Buffer[],
  bytes: Buffer,
  what: string,
  crc: SmlCrcAlgorithm = 'x25',
): number {
  const after = outcomesAfter(learnt, bytes, crc);
  assert.deepStrictEqual(after.outcomes, parsedOutcomes(bytes, crc), what);
  return after.byLayout;
}
