import type { AppContext } from '../../context.js';
import type { Reading } from '../../reading/reading.js';
import { SlowConsumerGuard } from '../../slow-consumer.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { eventStream, type SendEvent, type WriteRaw } from '../event-stream.js';
import type { Router } from '../router.js';
import type { LiveHub } from './live.js';

/**
 * GET /api/v1/page/stream (docs/architecture.md#page-stream): the web interface's one
 * Server-Sent Events stream. A browser keeps at most 6 HTTP/1.1 connections to one host (Fetch
 * standard, "connection pool"; Chromium and Firefox use 6), so a page holding one stream per card
 * leaves a second tab's requests waiting for a free connection. This stream carries, as named
 * events, what the single streams send, each block byte for byte as that stream writes it:
 * `live` as GET /api/v1/live, `peak` and `peak_event` as GET /api/v1/peak/stream,
 * `export_limiter` and `export_limiter_event` as GET /api/v1/export-limiter/stream. `?parts=`
 * names the parts a page wants (live, peak, limiter; all when absent); a part whose feature this
 * gateway does not serve is left out. The single streams stay as they are: /api/v1/live is the
 * device's API, and other clients follow the others.
 */

const PAGE_PARTS = ['live', 'peak', 'limiter'] as const;
type PagePart = (typeof PAGE_PARTS)[number];

/** Sends a part's current state, subscribes it; returns the unsubscribe. */
type PartSubscribe = (send: SendEvent, write: WriteRaw) => () => void;

/** The parts the stream can carry, added by the routes of each feature. */
export class PageStream {
  private readonly parts = new Map<PagePart, PartSubscribe>();

  add(part: PagePart, subscribe: PartSubscribe): void {
    this.parts.set(part, subscribe);
  }

  subscribe(asked: readonly PagePart[], send: SendEvent, write: WriteRaw): () => void {
    const ends: Array<() => void> = [];
    for (const part of asked) {
      const subscribe = this.parts.get(part);
      if (subscribe) ends.push(subscribe(send, write));
    }
    return () => {
      for (const end of ends) end();
    };
  }
}

/** `?parts=live,peak`: the known part names, each once; 400 for any other. */
function partsOf(text: string | null): PagePart[] {
  if (text === null) return [...PAGE_PARTS];
  const names = text.split(',').slice(0, 8);
  const unknown = names.filter((name) => !(PAGE_PARTS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0 || text.length > 64)
    throw new HttpError(400, 'validation_failed', 'invalid query parameters: parts', {
      fields: [
        { field: 'parts', message: `comma-separated of ${PAGE_PARTS.join(', ')}`, value: text.slice(0, 64) },
      ],
    });
  return PAGE_PARTS.filter((part) => names.includes(part));
}

/**
 * The live part: the hub's event bytes of each reading (serialised once for every stream) and the
 * latest at once (docs/architecture.md#live-payload).
 */
function livePart(ctx: AppContext, hub: LiveHub): PartSubscribe {
  return (_send, write) => {
    const onReading = (reading: Reading) => write(hub.eventOf(reading));
    const latest = ctx.store.latest;
    if (latest) write(hub.eventOf(latest));
    ctx.store.subscribe('page stream', 'reading', onReading);
    return () => ctx.store.off('reading', onReading);
  };
}

/**
 * Registers the route; the peak and export limiter routes add their parts. At most
 * http.live_max_clients clients (the live stream's limit: the page stream carries it), then 503;
 * a client that does not read is dropped (`slow_client_page`), as on every stream. The live
 * stream's keep-alive comment goes to every client at the live hub's period, whatever its parts.
 */
export function registerPageStreamRoute(router: Router, ctx: AppContext, live: LiveHub): PageStream {
  const page = new PageStream();
  page.add('live', livePart(ctx, live));
  const slow = new SlowConsumerGuard('page', undefined, ctx.refusals);
  const stream = eventStream({
    what: 'page',
    maxClients: () => ctx.config.config.http.live_max_clients,
    slow,
    config: ctx.config,
    keepAlive: { clock: ctx.clock, everyMs: live.keepAliveMs },
    subscribe: (send, write, request) => page.subscribe(partsOf(request.query.get('parts')), send, write),
  });
  router.add(
    'GET',
    '/api/v1/page/stream',
    (request, response) => {
      // Checked before the stream opens, so a bad query is a 400 and not an empty stream.
      partsOf(request.query.get('parts'));
      stream(request, response);
    },
    {
      doc: {
        summary:
          'The web interface’s one Server-Sent Events stream: `event: live` (as /api/v1/live), `event: peak` and `peak_event` (as /api/v1/peak/stream), `event: export_limiter` and `export_limiter_event` (as /api/v1/export-limiter/stream), for the parts asked',
        query: {
          parts: {
            type: 'string',
            description: 'comma-separated parts: live, peak, limiter (default all)',
          },
        },
        responses: {
          200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
          400: { description: 'unknown part (validation_failed, details.fields)', schema: ERROR_REF },
          503: { description: 'too many stream clients (service_unavailable)', schema: ERROR_REF },
        },
      },
    },
  );
  return page;
}
