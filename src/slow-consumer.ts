import type { Refusals } from './refusals.js';

/**
 * The one rule for every push stream (SSE and WebSocket, docs/architecture.md#hostile-input): a
 * client whose bytes not yet taken by its socket would exceed `maxBufferedBytes` is dropped, never
 * waited for, so a client that does not read costs at most that much memory. The stream gives its
 * client as a `StreamSink`; the drop is counted under `slow_client_<stream>` in the refusals and
 * by the guard itself.
 */
export interface StreamSink {
  /** Bytes queued for the client and not yet taken by the kernel. */
  queued(): number;
  write(bytes: Buffer | string): void;
  /** Ends the connection at once (no flush: the client does not read). */
  drop(): void;
}

export const DEFAULT_STREAM_BUFFER = 256 * 1024;

export class SlowConsumerGuard {
  /** Clients dropped for not reading. */
  dropped = 0;

  constructor(
    readonly stream: string,
    private readonly maxBufferedBytes: number = DEFAULT_STREAM_BUFFER,
    private readonly refusals?: Refusals,
  ) {}

  /** Whether a client with `queued` bytes waiting may be given `more` bytes. */
  keeps(queued: number, more = 0): boolean {
    return queued + more <= this.maxBufferedBytes;
  }

  /** Writes `bytes`, or drops the client when they would go over the bound; returns whether written. */
  write(sink: StreamSink, bytes: Buffer | string): boolean {
    const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    if (!this.keeps(sink.queued(), size)) {
      this.countDrop();
      sink.drop();
      return false;
    }
    sink.write(bytes);
    return true;
  }

  countDrop(): void {
    this.dropped++;
    this.refusals?.add(`slow_client_${this.stream}`);
  }
}

/** An HTTP response (an SSE stream) as a sink: `writableLength` covers the response and its socket. */
export function responseSink(response: {
  writableLength: number;
  write(bytes: Buffer | string): unknown;
  destroy(): unknown;
}): StreamSink {
  return {
    queued: () => response.writableLength,
    write: (bytes) => void response.write(bytes),
    drop: () => void response.destroy(),
  };
}

/** A `ws` WebSocket as a sink: `bufferedAmount` is what `send` queued and the socket did not take. */
export function webSocketSink(client: {
  bufferedAmount: number;
  send(data: Buffer | string): void;
  terminate(): void;
}): StreamSink {
  return {
    queued: () => client.bufferedAmount,
    write: (bytes) => client.send(bytes),
    drop: () => client.terminate(),
  };
}
