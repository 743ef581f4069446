import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import { restartDaemon } from '../device/maintenance/restart-daemon.js';
import { RestartGuard } from '../device/maintenance/restart-guard.js';
import type { GatewayFacts } from './ha-gateway-entities.js';

/** Linux wireless statistics: one line per Wi-Fi interface (`iface: status link level noise ...`). */
export const PROC_NET_WIRELESS = '/proc/net/wireless';

/**
 * The signal level of the first Wi-Fi interface in /proc/net/wireless, in dBm (the `level` column;
 * drivers that report dBm give a negative number, with a trailing '.' when it is updated). Undefined
 * without a Wi-Fi interface or with a level that is not in dBm.
 */
export function wifiSignalOf(text: string): number | undefined {
  for (const line of text.split('\n').slice(2)) {
    const match = /^\s*[^\s:]+:\s+\S+\s+\S+\s+(-?\d+)\.?\s/.exec(line);
    if (!match) continue;
    const level = Number(match[1]);
    return level < 0 ? level : undefined;
  }
  return undefined;
}

/** The host the API listens on when it is a specific one, else this host's first external IPv4 address. */
export function reachableAddress(http: AppConfig['http']): string | undefined {
  const host = http.host;
  if (host !== '0.0.0.0' && host !== '::' && host !== '' && isIP(host) !== 0) return host;
  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && !address.internal && address.family === 'IPv4');
  return external?.address;
}

/**
 * The gateway's facts for its HA diagnostics, read from the context at each heartbeat. The restart
 * takes the path of POST /api/v1/reboot, with its limit of one per 60 s (a repeated press answers
 * nothing and is logged).
 */
export function gatewayFactsOf(ctx: AppContext, wirelessFile = PROC_NET_WIRELESS): GatewayFacts {
  const guard = new RestartGuard(ctx.config.stateDirectory.dir, ctx.now, (problem) => {
    ctx.refusals.add('state_file_corrupt');
    ctx.logger.warn(
      `state file ${problem.path} was corrupt (${problem.reason}); moved to ${problem.movedTo}`,
    );
  });
  return {
    ipAddress: () => reachableAddress(ctx.config.config.http),
    uptimeS: () => Math.max(0, Math.round((ctx.now() - ctx.system.bootTime) / 1000)),
    wifiSignalDbm: () => {
      try {
        return wifiSignalOf(readFileSync(wirelessFile, 'utf8'));
      } catch {
        return undefined;
      }
    },
    firmware: ctx.system.firmware,
    restart: (reason) => {
      ctx.config.stateDirectory.ensure();
      const claim = guard.claim('reboot');
      if (!claim.ok) {
        ctx.logger.warn(`${reason}: ignored, a restart was requested less than 60 s ago`);
        return;
      }
      ctx.logger.info(reason);
      restartDaemon(ctx, reason);
    },
  };
}
