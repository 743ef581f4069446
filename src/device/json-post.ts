import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface PostOptions {
  /** The whole exchange, connect to the end of the answer. */
  timeoutMs: number;
  userAgent: string;
}

/**
 * POSTs a JSON body to an http:// or https:// URL (user info becomes Basic auth, as in any URL).
 * Resolves on a 2xx answer; rejects on any other status ("HTTP 503 Service Unavailable"), a
 * network error, or when the exchange takes longer than timeoutMs. No redirect is followed and
 * nothing is retried: the caller's backlog and backoff do that. The answer body is read and
 * dropped so the connection can be reused.
 */
export async function postJson(url: string, body: Buffer, options: PostOptions): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error(`invalid URL ${JSON.stringify(url)}`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new Error(`unsupported URL scheme ${target.protocol}`);
  // TLS loads with the first https:// push: plain-http pushes and daemons without one never need it.
  const request = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise<void>((resolve, reject) => {
    const outgoing = request(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'user-agent': options.userAgent,
      },
    });
    const timer = setTimeout(
      () => outgoing.destroy(new Error(`timeout after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    outgoing.on('error', (error) => finish(error));
    outgoing.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      response.resume();
      response.on('error', (error) => finish(error));
      response.on('end', () =>
        status >= 200 && status < 300
          ? finish()
          : finish(new Error(`HTTP ${status} ${response.statusMessage ?? ''}`.trim())),
      );
    });
    outgoing.end(body);
  });
}
