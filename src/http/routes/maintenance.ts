import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { HttpError } from '../errors.js';
import { sendNoContent } from '../respond.js';
import type { Router } from '../router.js';
import { RestartGuard, type RestartAction } from '../../device/maintenance/restart-guard.js';
import { restartDaemon } from '../../device/maintenance/restart-daemon.js';

/** 204 with the connection closed, then the restart once the response has been handed to the socket. */
function answerThenRestart(ctx: AppContext, response: ServerResponse, reason: string): void {
  response.setHeader('Connection', 'close');
  response.once('finish', () => restartDaemon(ctx, reason));
  sendNoContent(response);
}

function tooManyRequests(action: RestartAction, retryAfterMs: number): HttpError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return new HttpError(
    429,
    'too_many_requests',
    `${action} was requested less than 60 s ago; try again in ${seconds} s`,
    { retry_after: seconds },
    { 'Retry-After': String(seconds) },
  );
}

/**
 * POST /api/v1/reboot and POST /api/v1/restore, 204 then restart; 429 when
 * the same action is asked again within 60 s (docs/architecture.md#reboot-restore-update). Restore deletes
 * every state file (settings, Wi-Fi, MQTT, Modbus, meter, secrets) before it answers, so the restarted daemon
 * starts from the admin's config file and the defaults.
 */
export function registerMaintenanceRoutes(router: Router, ctx: AppContext): void {
  const guard = new RestartGuard(ctx.config.stateDirectory.dir, ctx.now, (problem) => {
    ctx.refusals.add('state_file_corrupt');
    ctx.logger.warn(
      `state file ${problem.path} was corrupt (${problem.reason}); moved to ${problem.movedTo}`,
    );
  });
  const claim = (action: RestartAction) => {
    ctx.config.stateDirectory.ensure();
    const result = guard.claim(action);
    if (!result.ok) throw tooManyRequests(action, result.retryAfterMs);
  };

  router.add('POST', '/api/v1/reboot', (_request, response) => {
    claim('reboot');
    ctx.logger.info('reboot requested through the API');
    answerThenRestart(ctx, response, 'reboot requested through the API');
  });

  router.add('POST', '/api/v1/restore', (_request, response) => {
    claim('restore');
    const removed = ctx.config.stateDirectory.removeAll();
    ctx.logger.info(`factory restore: deleted ${removed.length > 0 ? removed.join(', ') : 'no state files'}`);
    answerThenRestart(ctx, response, 'factory restore through the API');
  });
}
