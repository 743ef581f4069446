import { execFile } from 'node:child_process';
import type { AppContext } from '../../context.js';

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
