import { type DecodeResult, MeterDataError } from '../decoder.js';
import type { Reading } from '../../reading/reading.js';
import { D0AddressMemo, type D0ParseOptions, type D0Readout, parseD0Readout } from './parser.js';
import { type D0LayoutOptions, D0ReadoutLayout } from './readout-layout.js';
import { d0ReadoutToReading } from './to-reading.js';
import { RecentLayouts } from '../recent-layouts.js';

/**
 * Readout frames -> results for one meter's stream. Every readout that does not have a learnt
 * layout is read by parseD0Readout and d0ReadoutToReading (the general path), and its layout is
 * learnt; a readout of a learnt layout (./readout-layout.ts: same bytes apart from the digits of
 * values) is read straight into the Reading. Both give the same result.
 *
 * A few layouts are kept, most recently used first, for meters that alternate between readouts
 * (a short and a long list). A meter whose layouts keep being replaced before they are used even
 * once (values that change width) is left to the general path after MAX_FUTILE_LAYOUTS.
 */

const MAX_LAYOUTS = 4;
const MAX_FUTILE_LAYOUTS = 8;

export type D0ReadPath = 'layout' | 'general';

/** Frame bytes -> result by the general path alone; never throws for bad input. */
export function decodeD0Frame(frame: Buffer, receivedAt: number, options: D0ParseOptions = {}): DecodeResult {
  return generalResult(frame, receivedAt, options).result;
}

function generalResult(
  frame: Buffer,
  receivedAt: number,
  options: D0ParseOptions,
): { result: DecodeResult; readout?: D0Readout } {
  try {
    const readout = parseD0Readout(frame, options);
    return { result: { ok: true, reading: d0ReadoutToReading(readout, receivedAt), frame }, readout };
  } catch (error) {
    if (error instanceof MeterDataError) return { result: { ok: false, error, frame } };
    const message = `IEC 62056-21 readout not understood: ${String(error)}`;
    return { result: { ok: false, error: new MeterDataError('parse', message), frame } };
  }
}

export class D0DirectReading {
  private readonly parseOptions: D0ParseOptions;
  private readonly layoutOptions: D0LayoutOptions;
  private readonly layouts = new RecentLayouts<D0ReadoutLayout>(MAX_LAYOUTS);
  private futileLayouts = 0;
  private path: D0ReadPath | undefined;

  constructor(options: D0LayoutOptions) {
    this.layoutOptions = options;
    this.parseOptions = { verifyBlockCheck: options.verifyBlockCheck, addressMemo: new D0AddressMemo() };
  }

  /** How the last readout was read: by a learnt layout or by the general path. */
  get lastPath(): D0ReadPath | undefined {
    return this.path;
  }

  /**
   * The Reading of `chunk` when it is exactly one readout of a learnt layout that a framer between
   * frames would cut out as one frame of the whole chunk; undefined otherwise.
   */
  readWholeChunk(chunk: Buffer, receivedAt: number): Reading | undefined {
    const layout = this.layoutOf(chunk, true);
    if (!layout) return undefined;
    this.path = 'layout';
    return layout.read(chunk, receivedAt);
  }

  decode(frame: Buffer, receivedAt: number): DecodeResult {
    const layout = this.layoutOf(frame, false);
    if (layout) {
      this.path = 'layout';
      return { ok: true, reading: layout.read(frame, receivedAt), frame };
    }
    this.path = 'general';
    const { result, readout } = generalResult(frame, receivedAt, this.parseOptions);
    if (readout) this.learn(frame, readout);
    return result;
  }

  private layoutOf(bytes: Buffer, wholeChunk: boolean): D0ReadoutLayout | undefined {
    const layouts = this.layouts;
    for (let k = 0; k < layouts.size; k++) {
      const layout = layouts.at(k);
      if (wholeChunk && !layout.wholeChunk) continue;
      if (!layout.matches(bytes)) continue;
      layouts.use(k);
      return layout;
    }
    return undefined;
  }

  private learn(frame: Buffer, readout: D0Readout): void {
    if (this.futileLayouts >= MAX_FUTILE_LAYOUTS) return;
    const layout = D0ReadoutLayout.learn(frame, readout, this.layoutOptions);
    if (!layout) return;
    if (this.layouts.add(layout)) this.futileLayouts++;
  }
}
