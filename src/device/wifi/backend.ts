import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { WifiStationSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import type { WifiInfo } from '../../http/wifi-info.js';
import { componentLogger } from '../../log.js';
import { FileWifiBackend } from './file-backend.js';
import { createNmcliRunner } from './nmcli.js';
import { NmcliWifiBackend } from './nmcli-backend.js';
import type { ScanEntry } from './scan-entry.js';

/**
 * What /api/v1/system shows about the link (wifi.ssid, wifi.ip): ssid '' when not connected or
 * unknown; the nmcli backend adds rssi, signal, bssid and channel of the connected access point.
 */
export type { WifiInfo };

/**
 * Where Wi-Fi settings take effect (docs/architecture.md#wi-fi-and-ethernet): NetworkManager through nmcli on
 * a Pi, or nothing beyond the persisted settings where nmcli is absent. Settings are validated and stored by
 * the caller; a backend only applies them.
 */
export interface WifiBackend {
  readonly kind: 'nmcli' | 'file';
  scan(): Promise<ScanEntry[]>;
  /** Applies changed station settings now (the API wrote them): replaces and activates the client. */
  applyStation(station: WifiStationSettings, powerSave: boolean): Promise<void>;
  /** Clears and disables the client (DELETE /api/v1/wifi/sta/settings). */
  clearStation(): Promise<void>;
  /** Brings the system in line with the stored settings at start without disturbing a matching link. */
  syncAtStart(station: WifiStationSettings, powerSave: boolean): Promise<void>;
  setPowerSave(enabled: boolean): Promise<void>;
  /** True while a wired (non-wireless) interface has its link up. */
  ethernetLinkUp(): Promise<boolean>;
  wifiInfo(): Promise<WifiInfo>;
  /** Resolves once queued changes and background activations have finished (service stop). */
  settle(): Promise<void>;
}

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
  const onState = (state: string, error?: string) =>
    ctx.services.set('wifi', { state, ...(error ? { error } : {}) });
  const nmcli = findOnPath('nmcli', options.pathEnv ?? process.env.PATH);
  if (!nmcli) {
    logger.info('nmcli not found: Wi-Fi settings are stored only (file backend)');
    return new FileWifiBackend({ sysClassNet, onState });
  }
  return new NmcliWifiBackend({ run: createNmcliRunner(nmcli), logger, sysClassNet, now: ctx.now, onState });
}
