import { contract } from '../contract-ref.js';
import { ERROR_REF } from '../api-schemas.js';
import type { ValidationIssue } from '../../config/config-store.js';
import type { WifiStationSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import { throwUnlessApplied } from '../section-writes.js';
import { HttpError } from '../errors.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import type { WifiBackend } from '../../device/wifi/wifi-backend.js';
import {
  defaultStation,
  STATION_FIELDS,
  stationFromRequest,
  stationResponse,
} from '../../device/wifi/station-settings.js';

const SCAN_PATH = '/api/v1/wifi/scan';
const STATION_PATH = '/api/v1/wifi/sta/settings';
const WPS_PATH = '/api/v1/wifi/wps';

/** Fields named as the body names them (the config's `wifi.sta.` removed). */
function validationError(found: readonly ValidationIssue[]): HttpError {
  const issues = found.map((issue) => ({ ...issue, field: issue.field.replace(/^wifi\.sta\./, '') }));
  const summary = issues.map((issue) => `${issue.field || 'body'}: ${issue.message}`).join('; ');
  return new HttpError(400, 'validation_failed', `invalid Wi-Fi station settings: ${summary}`, {
    fields: issues,
  });
}

/**
 * Stores the station (validated by ConfigStore.apply, written atomically to wifi/secrets state
 * files); the network output applies it (docs/architecture.md#wi-fi-and-ethernet), and a backend
 * failure makes this write a 500 naming that output.
 */
async function store(ctx: AppContext, station: WifiStationSettings): Promise<void> {
  const changes = new Map<string, unknown>(
    STATION_FIELDS.map((field) => [`wifi.sta.${field}`, station[field]]),
  );
  await throwUnlessApplied(ctx, ctx.config.apply(changes), validationError);
}

/**
 * The Wi-Fi endpoints. Station changes apply at once, without restart (as on the whatwatt Go):
 * validated, stored, then applied by the network output. PUT merges over the current settings, POST over
 * the defaults except the password, which POST keeps unless the body sets it (as /api/v1/settings
 * does: a client cannot send back a secret it never saw; "" clears it). GET never returns the
 * password (password_len instead).
 */
export function registerWifiRoutes(router: Router, ctx: AppContext, backend: WifiBackend): void {
  router.add(
    'GET',
    SCAN_PATH,
    async (_request, response) => {
      let entries;
      try {
        entries = await backend.scan();
      } catch (error) {
        throw new HttpError(500, 'internal_error', `Wi-Fi scan failed: ${(error as Error).message}`);
      }
      sendJson(response, 200, entries);
    },
    {
      doc: {
        summary: 'Scan for Wi-Fi networks',
        responses: { 200: { description: 'access points in range', schema: contract('ScanListSchema') } },
      },
    },
  );

  router.add(
    'GET',
    STATION_PATH,
    (_request, response) => {
      sendJson(response, 200, stationResponse(ctx.config.config.wifi.sta));
    },
    {
      doc: {
        summary: 'Wi-Fi station settings (the password as its length)',
        responses: {
          200: {
            description: 'station settings (wifi.sta of the settings)',
            schema: contract('WifiStationViewSchema'),
          },
        },
      },
    },
  );

  const write =
    (base: () => WifiStationSettings) =>
    async (request: ApiRequest, response: Parameters<typeof sendJson>[0]) => {
      const result = stationFromRequest(request.body, base());
      if (!result.ok) throw validationError(result.issues);
      await store(ctx, result.station);
      sendJson(response, 200, stationResponse(ctx.config.config.wifi.sta));
    };
  router.add(
    'PUT',
    STATION_PATH,
    write(() => ctx.config.config.wifi.sta),
    { body: 'json' },
  );
  router.add(
    'POST',
    STATION_PATH,
    write(() => ({ ...defaultStation(), password: ctx.config.config.wifi.sta.password })),
    {
      body: 'json',
    },
  );

  router.add('DELETE', STATION_PATH, async (_request, response) => {
    await store(ctx, defaultStation());
    sendNoContent(response);
  });
  registerWpsRoute(router);
}

/**
 * POST /api/v1/wifi/wps (the device's "Wi-Fi Protected Setup", 204 when pairing starts): this
 * gateway has no WPS (NetworkManager pairing by push button is not offered), so it answers as a
 * device without the feature: 404 not_found with the reason and the way that works instead
 * (README, device compatibility). GET answers the same.
 */
function registerWpsRoute(router: Router): void {
  const absent = () => {
    throw new HttpError(
      404,
      'not_found',
      'Wi-Fi Protected Setup is not available on this gateway: set the network with PUT /api/v1/wifi/sta/settings',
      { feature: 'wps' },
    );
  };
  const doc = {
    summary: 'WPS pairing: not available',
    responses: { 404: { description: 'no WPS on this gateway (not_found)', schema: ERROR_REF } },
  };
  router.add('POST', WPS_PATH, absent, { doc });
  router.add('GET', WPS_PATH, absent, { doc });
}

/**
 * The 400 rule for system.power_save (docs/architecture.md#wi-fi-and-ethernet): power saving cannot be
 * switched on while an Ethernet link is up. The settings endpoint calls this before it stores the value.
 */
export async function assertPowerSaveAllowed(backend: WifiBackend, wanted: unknown): Promise<void> {
  if (wanted !== true) return;
  if (await backend.ethernetLinkUp()) {
    throw new HttpError(
      400,
      'validation_failed',
      'system.power_save cannot be enabled while an Ethernet link is up',
      {
        fields: [
          { field: 'system.power_save', message: 'not allowed while an Ethernet link is up', value: true },
        ],
      },
    );
  }
}
