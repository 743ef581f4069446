import type { ExportLimiter, LimiterStatus, LimiterWrite } from '../../export-limiter/limiter.js';
import { ERROR_REF } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import { eventStream, type SendEvent } from '../event-stream.js';
import type { PageStream } from './page-stream.js';
import type { AppContext } from '../../context.js';
import { SlowConsumerGuard } from '../../slow-consumer.js';

/**
 * The export limiter's endpoints (docs/architecture.md#export-limiter): its state, and a
 * Server-Sent Events stream of it (`event: export_limiter` on every control step,
 * `event: export_limiter_event` for decisions, writes, stale meter, lost inverters).
 */

const MAX_STREAM_CLIENTS = 16;

/**
 * `event: export_limiter` now and on every control step, `event: export_limiter_event` for the
 * limiter's events and each write to an inverter.
 */
function subscribeToLimiter(limiter: ExportLimiter): (send: SendEvent) => () => void {
  return (send) => {
    const onStatus = (status: LimiterStatus) => send('export_limiter', status);
    const onEvent = (event: { at: number; type: string; message: string }) =>
      send('export_limiter_event', { ...event, at: new Date(event.at).toISOString() });
    const onWrite = (write: LimiterWrite) =>
      send('export_limiter_event', {
        at: new Date(write.at).toISOString(),
        type: `write_${write.kind}`,
        message: `${write.inverter}: ${write.percent === null ? 'limit cancelled' : `${write.percent} %`}`,
      });
    send('export_limiter', limiter.status());
    limiter.on('status', onStatus);
    limiter.on('event', onEvent);
    limiter.on('write', onWrite);
    return () => {
      limiter.off('status', onStatus);
      limiter.off('event', onEvent);
      limiter.off('write', onWrite);
    };
  };
}

export function registerExportLimiterRoutes(
  router: Router,
  ctx: AppContext,
  limiter: ExportLimiter,
  page?: PageStream,
): SlowConsumerGuard {
  // The web interface's stream (src/http/routes/page-stream.ts) carries the same events.
  page?.add('limiter', subscribeToLimiter(limiter));
  const slow = new SlowConsumerGuard('export_limiter', undefined, ctx.refusals);
  const stream = eventStream({
    what: 'export limiter',
    maxClients: MAX_STREAM_CLIENTS,
    slow,
    config: ctx.config,
    subscribe: subscribeToLimiter(limiter),
  });
  router.add(
    'GET',
    '/api/v1/export-limiter',
    (_request, response) => sendJson(response, 200, limiter.status()),
    {
      doc: {
        summary:
          'PV export limiter: mode, decision and its reason, target, grid power, each inverter’s reported output, commanded limit, last write, writes per hour, state',
        responses: {
          200: { description: 'export limiter state', schema: contract('ExportLimiterViewSchema') },
        },
      },
    },
  );
  router.add('GET', '/api/v1/export-limiter/stream', stream, {
    doc: {
      summary:
        'The export limiter as Server-Sent Events: `event: export_limiter` (as GET /api/v1/export-limiter) on every control step, `event: export_limiter_event` for decisions, writes, a stale meter, a lost or busy inverter',
      responses: {
        200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
        503: { description: 'too many stream clients (service_unavailable)', schema: ERROR_REF },
      },
    },
  });
  return slow;
}
