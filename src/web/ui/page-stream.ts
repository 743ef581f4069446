import { pageRelative } from './api.js';

/**
 * The page's one EventSource, on /api/v1/page/stream (docs/architecture.md#page-stream): a browser
 * keeps 6 connections to one host, and a stream per card held them all with two tabs open. The
 * dashboard, the peak guard and the export limiter listen here by event name; `open` and `error`
 * follow the connection. The browser retries a dropped stream itself; a refused one (503 client
 * limit, 401) is CLOSED, and then we retry after 5 s.
 */
const listeners = new Map<string, Array<(data: never) => void>>();

/** Listens to the stream's `name` events (their JSON data), or to `open` / `error`. */
export function onStream<T = undefined>(name: string, listener: (data: T) => void): void {
  listeners.set(name, [...(listeners.get(name) ?? []), listener]);
}

/** Opens the stream once every part of the page listens. */
export function startStream(): void {
  const source = new EventSource(pageRelative('/api/v1/page/stream?parts=live,peak,limiter'));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(startStream, 5_000);
  };
  // `open` and `error` are plain events, without data.
  for (const [name, named] of listeners)
    source.addEventListener(name, (event) => {
      const data = (event as MessageEvent<string>).data;
      for (const listener of named) listener((data === undefined ? data : JSON.parse(data)) as never);
    });
}
