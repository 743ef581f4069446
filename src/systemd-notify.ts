import { execFile } from 'node:child_process';
import { systemClock, type Clock, type Timer } from './clock.js';

/**
 * sd_notify through the systemd-notify command (the unit sets NotifyAccess=all, because the
 * message comes from a child process). Does nothing outside systemd (no NOTIFY_SOCKET).
 */
export function notifySystemd(...assignments: string[]): void {
  if (!process.env.NOTIFY_SOCKET) return;
  const args = assignments[0] === 'READY=1' ? ['--ready', ...assignments.slice(1)] : assignments;
  execFile('systemd-notify', args, () => undefined);
}

/** WATCHDOG=1 pings at half the unit's WatchdogSec while the event loop turns. */
export function startWatchdog(clock: Clock = systemClock): Timer | undefined {
  const usec = Number(process.env.WATCHDOG_USEC);
  if (!process.env.NOTIFY_SOCKET || !Number.isFinite(usec) || usec <= 0) return undefined;
  const timer = clock.setInterval(() => notifySystemd('WATCHDOG=1'), Math.max(500, usec / 2000));
  timer.unref();
  return timer;
}
