import { contract } from '../contract-ref.js';
import { realpathSync } from 'node:fs';
import type { AppContext } from '../../context.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import type { Router } from '../router.js';
import type { ProbeRequest } from '../../contracts/probe.js';
import { parseSource } from '../../meter/source.js';
import { probeSerialPort, type ProbeOptions } from '../../meter/probe/probe.js';
import { DEVICE_PATH_RULE, isDevicePath } from '../../serial/device-path.js';

export const PROBE_PATH = '/api/v1/meter/probe';

/** The device path with symbolic links resolved (/dev/serial/by-id/... -> /dev/ttyUSB0) when it exists. */
function canonicalDevice(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The body's device (its type and length checked by contract('ProbeRequestSchema')), if it is a device path. */
function requestedDevice(body: ProbeRequest): string {
  const { device } = body;
  if (!isDevicePath(device))
    throw new HttpError(400, 'validation_failed', `device: must be ${DEVICE_PATH_RULE}`, {
      fields: [{ field: 'device', message: `must be ${DEVICE_PATH_RULE}`, value: device }],
    });
  return device;
}

/** The serial device the meter input is configured to hold open, if any. */
function deviceInUse(ctx: AppContext): string | undefined {
  try {
    const source = parseSource(ctx.config.config.meter.source);
    return source.kind === 'serial' ? canonicalDevice(source.path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * POST /api/v1/meter/probe {"device": "/dev/ttyUSB0"}: runs the probe of the CLI (`meter-gateway
 * probe`) on a serial port and answers its result, `source` being the meter.source URI to use. A
 * device the meter input holds (meter.source names it) is refused with 409: two readers on one
 * port would each see half of the bytes. One probe at a time (409 while one runs); a probe takes
 * at most PROBE_BUDGET_MS and stops when the server shuts down.
 */
export function registerProbeRoute(
  router: Router,
  ctx: AppContext,
  options: Pick<ProbeOptions, 'steps' | 'budgetMs'> = {},
): void {
  let running = false;
  router.route(
    {
      method: 'POST',
      path: PROBE_PATH,
      summary: 'Detect protocol and line settings of a serial port (the CLI probe); up to 30 s',
      body: contract('ProbeRequestSchema'),
      response: {
        200: {
          description: 'probe result (status OK with source, NOT RECOGNIZED, NOT CONNECTED)',
          schema: contract('ProbeResultViewSchema'),
        },
        400: {
          description: 'device missing or not an absolute path (validation_failed)',
          schema: ERROR_REF,
        },
        409: {
          description: 'the meter input uses this device, or a probe is running (conflict)',
          schema: ERROR_REF,
        },
      },
    },
    async ({ body, request }) => {
      const device = requestedDevice(body);
      if (deviceInUse(ctx) === canonicalDevice(device)) {
        throw new HttpError(
          409,
          'conflict',
          `${device} is the meter input's port (meter.source); not probed`,
          { device },
        );
      }
      if (running) throw new HttpError(409, 'conflict', 'a probe is already running');
      running = true;
      try {
        const key = ctx.config.config.meter.encryption_key;
        const result = await probeSerialPort(device, {
          clock: ctx.clock,
          ...options,
          ...(key ? { encryptionKey: key } : {}),
          ...(request.shutdown ? { signal: request.shutdown } : {}),
        });
        ctx.logger.info(
          `meter probe of ${device}: ${result.status}${result.source ? ` (${result.source})` : ''}`,
        );
        return { status: 200, body: result };
      } finally {
        running = false;
      }
    },
  );
}
