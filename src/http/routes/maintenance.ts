import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { HttpError } from '../errors.js';
import { sendNoContent } from '../respond.js';
import type { Router } from '../router.js';
import { RestartGuard, type RestartAction } from '../../device/maintenance/restart-guard.js';

/** The host command may take a while (it usually stops this process); it is not waited for longer. */
const RESTART_COMMAND_TIMEOUT_MS = 120_000;

/**
 * Restarts the daemon (docs/architecture.md#reboot-restore-update): the admin's device.restart_command when
 * set, else ctx.requestRestart (the daemon exits and systemd's Restart=always starts it again).
 * The command is run as `/bin/sh -c <command>`: it is a whole command line the admin wrote in the
 * config file on purpose (a daemon-only key the API cannot write), and splitting it into words here
 * would be a half-shell. When it fails, the daemon restarts itself anyway (a restore must not keep
 * running on the settings it has just deleted).
 */
export function restartDaemon(ctx: AppContext, reason: string): void {
  const command = ctx.config.config.device.restart_command;
  if (command === '') {
    ctx.requestRestart(reason);
    return;
  }
  ctx.logger.info(`${reason}: running device.restart_command`);
  execFile(
    '/bin/sh',
    ['-c', command],
    { timeout: RESTART_COMMAND_TIMEOUT_MS, env: { ...process.env, RESTART_REASON: reason } },
    (error, _stdout, stderr) => {
      if (!error) return;
      ctx.logger.error(
        `device.restart_command failed (${error.message.trim()}${stderr ? `: ${stderr.trim()}` : ''}); restarting the daemon instead`,
      );
      ctx.requestRestart(reason);
    },
  );
}

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
  const guard = new RestartGuard(ctx.config.stateDirectory.dir, ctx.now);
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
