import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import { listSerialPorts } from '../../serial/port-list.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import type { SerialPortView } from '../../contracts/status.js';

export const SERIAL_PORTS_PATH = '/api/v1/serial/ports';

/**
 * GET /api/v1/serial/ports: the serial devices present under paths.devices (the probe form and the
 * Modbus RTU setting offer them to pick from), stable by-id names first.
 */
export function registerSerialPortsRoute(router: Router, ctx: AppContext): void {
  router.add(
    'GET',
    SERIAL_PORTS_PATH,
    (_request, response) => {
      const ports: SerialPortView[] = listSerialPorts(ctx.config.config.paths.devices);
      sendJson(response, 200, { ports });
    },
    {
      doc: {
        summary: 'Serial ports present (by-id links, ttyUSB*, ttyACM*, ttyAMA0, serial0)',
        responses: { 200: { description: 'ports', schema: contract('SerialPortsSchema') } },
      },
    },
  );
}
