import type { AppContext } from '../../context.js';
import type { PeakEvent, PeakSnapshot } from '../../peak/engine-types.js';
import type { PeakGuard } from '../../peak/peak-guard.js';
import { peakHistoryView } from '../../peak/view.js';
import { MONTHS_KEPT } from '../../peak/months.js';
import { ERROR_REF } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import { SlowConsumerGuard } from '../../slow-consumer.js';
import { eventStream, type SendEvent } from '../event-stream.js';
import type { PageStream } from './page-stream.js';

/**
 * The peak guard's endpoints (docs/architecture.md#peak-guard): its state, its month peaks, and
 * a Server-Sent Events stream of both (`event: peak` on every reading, `event: peak_event` for
 * warnings, sheds, restores ...). /api/v1/live stays as the device sends it.
 */

const MAX_STREAM_CLIENTS = 16;

/** `event: peak` now and on every update, `event: peak_event` for each of the guard's events. */
function subscribeToGuard(guard: PeakGuard): (send: SendEvent) => () => void {
  return (send) => {
    const onUpdate = (snapshot: PeakSnapshot) => send('peak', guard.view(snapshot));
    const onEvent = (event: PeakEvent) =>
      send('peak_event', { ...event, at: new Date(event.at).toISOString() });
    send('peak', guard.view());
    guard.on('update', onUpdate);
    guard.on('event', onEvent);
    return () => {
      guard.off('update', onUpdate);
      guard.off('event', onEvent);
    };
  };
}

/** `page`: the web interface's stream (src/http/routes/page-stream.ts), which carries the same events. */
export function registerPeakRoutes(
  router: Router,
  ctx: AppContext,
  guard: PeakGuard,
  page?: PageStream,
): SlowConsumerGuard {
  page?.add('peak', subscribeToGuard(guard));
  const slow = new SlowConsumerGuard('peak', undefined, ctx.refusals);
  const stream = eventStream({
    what: 'peak',
    maxClients: MAX_STREAM_CLIENTS,
    slow,
    config: ctx.config,
    subscribe: subscribeToGuard(guard),
  });
  router.add('GET', '/api/v1/peak', (_request, response) => sendJson(response, 200, guard.view()), {
    doc: {
      summary:
        'Capacity-tariff peak guard: the demand window, running/average/predicted/allowed power, headroom, limit, month peak, rolling average, shed stages, marginal cost',
      responses: {
        200: {
          description: 'peak guard state (state off while disabled)',
          schema: contract('PeakViewSchema'),
        },
      },
    },
  });
  router.add(
    'GET',
    '/api/v1/peak/history',
    (request, response) => {
      const text = request.query.get('months') ?? String(MONTHS_KEPT);
      const months = Number(text);
      if (!/^\d{1,2}$/.test(text) || months < 1 || months > MONTHS_KEPT)
        throw new HttpError(400, 'validation_failed', 'invalid query parameters: months', {
          fields: [{ field: 'months', message: `must be an integer 1..${MONTHS_KEPT}`, value: text }],
        });
      sendJson(
        response,
        200,
        peakHistoryView(guard.monthEntries(), months, guard.windowSeconds, (month) =>
          guard.meterDemand.monthOf(month),
        ),
      );
    },
    {
      doc: {
        summary: 'Month peaks of the peak guard with the top windows of each month, newest last',
        query: {
          months: { type: 'integer', minimum: 1, maximum: MONTHS_KEPT, description: 'months (default 13)' },
        },
        responses: {
          200: { description: 'month peaks', schema: contract('PeakHistorySchema') },
          400: { description: 'invalid months (validation_failed, details.fields)', schema: ERROR_REF },
        },
      },
    },
  );
  router.add('GET', '/api/v1/peak/stream', stream, {
    doc: {
      summary:
        'The peak guard as Server-Sent Events: `event: peak` (as GET /api/v1/peak) on every reading, `event: peak_event` for warning, shed, restore, ineffective, unavoidable, new_month_peak',
      responses: {
        200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
        503: { description: 'too many stream clients (service_unavailable)', schema: ERROR_REF },
      },
    },
  });
  return slow;
}
