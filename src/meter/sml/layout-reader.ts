import type { Reading } from '../../reading/reading.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import type { FrameLayout } from './frame-layout.js';
import { learnFrameLayout } from './layout-learner.js';
import { RecentLayouts } from '../recent-layouts.js';

/** Layouts kept: some meters alternate between two kinds of frame. */
const MAX_LAYOUTS = 2;
/** Learning attempts in a row that came to nothing before learning pauses (see learn()). */
const MAX_FUTILE_ATTEMPTS = 4;
/** While paused, a layout is learnt from one parsed frame in this many. */
const PAUSED_LEARNING_INTERVAL = 64;

/**
 * Frames of one meter read by a learnt layout (./frame-layout.ts), learnt from frames the parser
 * read; the two layouts used last are kept. One instance per byte stream.
 *
 * A meter whose frames keep changing their layout would pay for learning on every frame. An
 * attempt comes to nothing when the frame has no layout that can be learnt, or when its layout is
 * dropped without having matched a frame; after MAX_FUTILE_ATTEMPTS of these in a row only one
 * parsed frame in PAUSED_LEARNING_INTERVAL is learnt from, until a layout matches again.
 */
export class SmlLayoutReader {
  private readonly known = new RecentLayouts<FrameLayout>(MAX_LAYOUTS);
  private futileAttempts = 0;
  private pausedFrames = 0;
  /** Frames read by a layout. */
  framesRead = 0;

  constructor(private readonly crc: SmlCrcAlgorithm) {}

  /**
   * The Reading of a frame without escaped data when it has a known layout and a good checksum;
   * undefined otherwise (the caller parses it, then calls learn()).
   */
  read(frame: Buffer, receivedAt: number): Reading | undefined {
    const known = this.known;
    for (let k = 0; k < known.size; k++) {
      const reading = known.at(k).read(frame, receivedAt);
      if (reading === undefined) continue;
      known.use(k);
      this.futileAttempts = 0;
      this.framesRead += 1;
      return reading;
    }
    return undefined;
  }

  /** Learns the layout of a frame without escaped data that the parser read as `reading`. */
  learn(frame: Buffer, reading: Reading): void {
    if (this.futileAttempts >= MAX_FUTILE_ATTEMPTS && ++this.pausedFrames % PAUSED_LEARNING_INTERVAL !== 0)
      return;
    const layout = learnFrameLayout(frame, reading, this.crc);
    if (layout === undefined) {
      this.futileAttempts += 1;
      return;
    }
    if (this.known.add(layout)) this.futileAttempts += 1;
  }

  /** Forgets the layouts (another meter may be connected next). */
  reset(): void {
    this.known.clear();
    this.futileAttempts = 0;
    this.pausedFrames = 0;
  }
}
