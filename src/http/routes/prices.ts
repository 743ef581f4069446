import type { AppContext } from '../../context.js';
import type { PriceStore } from '../../prices/price-store.js';
import { dayOf, pricesView } from '../../prices/view.js';
import { ERROR_REF } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';

/** GET /api/v1/prices (docs/architecture.md#prices): the day-ahead quarters of one local day. */
export function registerPricesRoutes(router: Router, ctx: AppContext, store: PriceStore): void {
  router.add(
    'GET',
    '/api/v1/prices',
    (request, response) => {
      const text = request.query.get('day') ?? 'today';
      const day = dayOf(text, ctx.now());
      const view =
        day === undefined ? undefined : pricesView(store, ctx.config.config.services.costs, day, ctx.now());
      if (!view)
        throw new HttpError(400, 'validation_failed', 'invalid query parameters: day', {
          fields: [{ field: 'day', message: 'must be today, tomorrow or a date YYYY-MM-DD', value: text }],
        });
      sendJson(response, 200, view);
    },
    {
      doc: {
        summary:
          'Day-ahead prices of one local day: every quarter with spot, import and export price, the current and next quarter, min/max/mean and the rank of the current quarter',
        query: {
          day: { type: 'string', description: 'today (default), tomorrow or a local date YYYY-MM-DD' },
        },
        responses: {
          200: {
            description: 'the quarters of the day (92, 96 or 100)',
            schema: contract('PricesViewSchema'),
          },
          400: { description: 'invalid day (validation_failed, details.fields)', schema: ERROR_REF },
        },
      },
    },
  );
}
