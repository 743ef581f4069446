import { systemClock, type Clock, type Timer } from '../../clock.js';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { ByteTransport, ByteTransportEvents } from './transport.js';

/**
 * Replays a capture file (`file:PATH?interval=1&loop=true`): the whole file is cut into frames by
 * `splitFrames` (protocol-aware, from the decoder side) and one frame is emitted per interval, so
 * replays behave like a meter that sends at that rate. Without a splitter the file is sent whole.
 */
export class FileReplayTransport extends EventEmitter<ByteTransportEvents> implements ByteTransport {
  private timer: Timer | undefined;
  private frames: Buffer[] = [];
  private next = 0;

  constructor(
    private readonly path: string,
    private readonly intervalMs: number,
    private readonly loop: boolean,
    private readonly splitFrames: (bytes: Buffer) => Buffer[],
    private readonly clock: Clock = systemClock,
  ) {
    super();
  }

  get description(): string {
    return `file:${this.path}`;
  }

  async open(): Promise<void> {
    const bytes = await readFile(this.path);
    const frames = this.splitFrames(bytes);
    this.frames = frames.length > 0 ? frames : [bytes];
    this.next = 0;
    this.emitNext();
  }

  private emitNext(): void {
    if (this.next >= this.frames.length) {
      if (!this.loop) return;
      this.next = 0;
    }
    const frame = this.frames[this.next++]!;
    this.timer = this.clock.setTimeout(() => this.emitNext(), this.intervalMs);
    this.emit('data', frame);
  }

  async close(): Promise<void> {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
