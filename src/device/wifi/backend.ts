import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { AppContext } from '../../context.js';
import { componentLogger } from '../../log.js';
import { FileWifiBackend } from './file-backend.js';
import { attachLinkStates, LinkStates } from './link-states.js';
import { createNmcliRunner } from './nmcli.js';
import { NmcliWifiBackend } from './nmcli-backend.js';
import type { WifiBackend } from './wifi-backend.js';

export interface WifiBackendOptions {
  /** PATH to look for nmcli in (default process.env.PATH). */
  pathEnv?: string;
  /** Root of the network interface tree (default /sys/class/net). */
  sysClassNet?: string;
}

/** The first executable `name` on the PATH, or undefined. */
export function findOnPath(name: string, pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** NetworkManager when nmcli is on the PATH, the file-only backend otherwise. */
export function createWifiBackend(ctx: AppContext, options: WifiBackendOptions = {}): WifiBackend {
  const logger = componentLogger(ctx.logger, 'wifi');
  const sysClassNet = options.sysClassNet ?? '/sys/class/net';
  // The backend reports its link states; the network output writes them into its status line.
  const links = new LinkStates();
  const onState = (state: string, error?: string) => links.report('wifi', state, error);
  const onEthernetState = (state: string, error?: string) => links.report('ethernet', state, error);
  const ethernetInterface = () => ctx.config.config.network.ethernet_interface;
  const nmcli = findOnPath('nmcli', options.pathEnv ?? process.env.PATH);
  if (!nmcli) {
    logger.info('nmcli not found: Wi-Fi settings are stored only (file backend)');
    const files = new FileWifiBackend({ sysClassNet, onState, ethernetInterface, onEthernetState });
    attachLinkStates(files, links);
    return files;
  }
  const backend = new NmcliWifiBackend({
    run: createNmcliRunner(nmcli),
    logger,
    sysClassNet,
    now: ctx.now,
    onState,
    ethernetInterface,
    onEthernetState,
  });
  attachLinkStates(backend, links);
  return backend;
}
