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

/** Fields named as the body names them (the config's `wifi.sta.` removed). */
function validationError(found: readonly ValidationIssue[]): HttpError {
  const issues = found.map((issue) => ({ ...issue, field: issue.field.replace(/^wifi\.sta\./, '') }));
  const summary = issues.map((issue) => `${issue.field || 'body'}: ${issue.message}`).join('; ');
  return new HttpError(400, 'validation_failed', `invalid Wi-Fi station settings: ${summary}`, {
    fields: issues,
  });
}

/** Stores the station (validated by ConfigStore.apply, written atomically to wifi/secrets state files). */
function store(ctx: AppContext, station: WifiStationSettings): void {
  const changes = new Map<string, unknown>(
    STATION_FIELDS.map((field) => [`wifi.sta.${field}`, station[field]]),
  );
  throwUnlessApplied(ctx.config.apply(changes), validationError);
}

async function applyToBackend(ctx: AppContext, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    ctx.logger.error(`Wi-Fi settings stored but not applied: ${(error as Error).message}`);
    throw new HttpError(
      500,
      'internal_error',
      `Wi-Fi settings stored but not applied: ${(error as Error).message}`,
    );
  }
}

/**
 * The Wi-Fi endpoints. Station changes apply at once, without restart (as on the whatwatt Go):
 * validated, stored, then handed to the backend. PUT merges over the current settings, POST over
 * the defaults except the password, which POST keeps unless the body sets it (as /api/v1/settings
 * does: a client cannot send back a secret it never saw; "" clears it). GET never returns the
 * password (password_len instead).
 */
export function registerWifiRoutes(router: Router, ctx: AppContext, backend: WifiBackend): void {
  router.add('GET', SCAN_PATH, async (_request, response) => {
    let entries;
    try {
      entries = await backend.scan();
    } catch (error) {
      throw new HttpError(500, 'internal_error', `Wi-Fi scan failed: ${(error as Error).message}`);
    }
    sendJson(response, 200, entries);
  });

  router.add('GET', STATION_PATH, (_request, response) => {
    sendJson(response, 200, stationResponse(ctx.config.config.wifi.sta));
  });

  const write =
    (base: () => WifiStationSettings) =>
    async (request: ApiRequest, response: Parameters<typeof sendJson>[0]) => {
      const result = stationFromRequest(request.body, base());
      if (!result.ok) throw validationError(result.issues);
      store(ctx, result.station);
      await applyToBackend(ctx, () =>
        backend.applyStation(result.station, ctx.config.config.system.power_save),
      );
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
    store(ctx, defaultStation());
    await applyToBackend(ctx, () => backend.clearStation());
    sendNoContent(response);
  });
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
