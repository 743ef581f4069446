import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import type { DiscoveredDongle } from '../../contracts/meters.js';
import { browseDongles } from '../../device/mdns-browse.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';

/**
 * GET /api/v1/meters/discover: the HomeWizard and Shelly dongles an mDNS browse finds, for the
 * further-meter editor's "Find on the network" (docs/architecture.md#dongle-sources).
 */
export function registerMeterDiscoverRoute(router: Router, ctx: AppContext): void {
  // One browse at a time: a request while one runs gets its answer (docs/architecture.md#dongle-sources).
  let browsing: Promise<DiscoveredDongle[]> | undefined;
  router.add(
    'GET',
    '/api/v1/meters/discover',
    async (_request, response) => {
      // services.broadcast is the gateway's mDNS on the network, its questions as its announcements.
      if (!ctx.config.config.services.broadcast)
        throw new HttpError(
          409,
          'conflict',
          'mDNS is off (services.broadcast): turn it on to find devices on the network',
        ).withKey('error.mdns_off');
      browsing ??= browseDongles(ctx, { systemId: ctx.system.id }).finally(() => (browsing = undefined));
      sendJson(response, 200, await browsing);
    },
    {
      doc: {
        summary: 'HomeWizard and Shelly dongles on the network, found by a 3 s mDNS browse',
        responses: {
          200: {
            description: 'the dongles found, each with the meter source URI that reads it',
            schema: contract('DiscoveredDongleListSchema'),
          },
          409: { description: 'mDNS is off, services.broadcast (conflict)', schema: ERROR_REF },
        },
      },
    },
  );
}
