import { get, type IncomingMessage, type ClientRequest } from 'node:http';

/**
 * A minimal Server-Sent Events reader over node:http for tests: collects raw event blocks (text
 * between blank lines, WHATWG HTML §9.2.6) as they arrive and lets a test wait for the next one.
 */
export interface SseStream {
  response: IncomingMessage;
  request: ClientRequest;
  /** Every complete block received so far ("event: live\ndata: {...}", ": keep-alive"). */
  blocks: string[];
  /** Resolves with the block at index `n` once it has arrived. */
  block(n: number): Promise<string>;
  ended: Promise<void>;
  close(): void;
}

export function openStream(baseUrl: string, path = '/api/v1/live'): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const request = get(`${baseUrl}${path}`, { agent: false }, (response) => {
      const blocks: string[] = [];
      const waiters = new Map<number, () => void>();
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          blocks.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          waiters.get(blocks.length - 1)?.();
        }
      });
      const ended = new Promise<void>((done) => response.socket.once('close', () => done()));
      resolve({
        response,
        request,
        blocks,
        ended,
        block: (n) =>
          blocks[n] !== undefined
            ? Promise.resolve(blocks[n]!)
            : new Promise((done, fail) => {
                waiters.set(n, () => done(blocks[n]!));
                void ended.then(() => fail(new Error(`stream ended before block ${n}`)));
              }),
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}

/** The JSON of an `event: live` block; fails when the block is anything else. */
export function liveData(block: string): Record<string, unknown> {
  const lines = block.split('\n');
  if (lines.length !== 2 || lines[0] !== 'event: live' || !lines[1]!.startsWith('data: ')) {
    throw new Error(`not a live event: ${JSON.stringify(block)}`);
  }
  return JSON.parse(lines[1]!.slice('data: '.length)) as Record<string, unknown>;
}
