import type { EthernetSettings } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { carrierUp } from './ethernet-link.js';
import { netmaskOf, NO_ETHERNET, type EthernetInfo } from './ethernet-info.js';
import { runUnlessMissing, type NmcliRunner } from './nmcli.js';
import { ProfileActivations } from './nmcli-activations.js';
import { StatusCache } from './status-cache.js';
import { splitTerseLine } from './nmcli-terse.js';
import { prefixLengthOf } from '../../config/network-rules.js';

/** The NetworkManager wired profile this daemon owns; the system's own profiles are left alone. */
export const ETHERNET_PROFILE = 'meter-gateway-eth';

/** Above NetworkManager's default autoconnect priority 0, so the owned profile wins on the interface. */
const AUTOCONNECT_PRIORITY = '100';

/** NMDeviceState (libnm): 10 unmanaged, 20 unavailable (no carrier), 30 disconnected and above: a link. */
const NM_DEVICE_STATE = { UNMANAGED: 10, DISCONNECTED: 30 } as const;

const INFO_FIELDS = 'GENERAL.HWADDR,GENERAL.STATE,IP4.ADDRESS,IP4.GATEWAY,IP4.DNS';

/** `nmcli connection add` arguments of the wired profile on `ifname`. */
export function ethernetProfileArgs(eth: EthernetSettings, ifname: string): string[] {
  const args = ['connection', 'add', 'type', 'ethernet', 'con-name', ETHERNET_PROFILE, 'ifname', ifname];
  args.push('connection.autoconnect', 'yes', 'connection.autoconnect-priority', AUTOCONNECT_PRIORITY);
  if (eth.static_ip) {
    args.push('ipv4.method', 'manual', 'ipv4.addresses', `${eth.ip}/${prefixLengthOf(eth.netmask)}`);
    args.push('ipv4.gateway', eth.gateway, 'ipv4.dns', eth.dns);
  } else {
    args.push('ipv4.method', 'auto');
  }
  return args;
}

/** The system JSON `ethernet` object from `nmcli -t -f GENERAL.HWADDR,... device show <ifname>`. */
export function ethernetInfoOf(output: string, carrier: boolean): EthernetInfo {
  const fields = new Map<string, string>();
  for (const line of output.split('\n')) {
    const [key, value] = splitTerseLine(line);
    // Multi-valued properties come as IP4.ADDRESS[1], IP4.ADDRESS[2] ...: the first one counts.
    const name = key?.replace(/\[\d+\]$/, '');
    if (name && value !== undefined && !fields.has(name)) fields.set(name, value);
  }
  const state = Number.parseInt(fields.get('GENERAL.STATE') ?? '', 10);
  const linked = state >= NM_DEVICE_STATE.DISCONNECTED || (state === NM_DEVICE_STATE.UNMANAGED && carrier);
  const [ip = '', prefix] = (fields.get('IP4.ADDRESS') ?? '').split('/');
  const blank = (value: string | undefined) => (value === undefined || value === '--' ? '' : value);
  return {
    mac: blank(fields.get('GENERAL.HWADDR')).toUpperCase(),
    status: linked ? 'Up' : 'Down',
    ip,
    mask: prefix === undefined ? '' : netmaskOf(Number(prefix)),
    gateway: blank(fields.get('IP4.GATEWAY')),
    dns: blank(fields.get('IP4.DNS')),
  };
}

export interface NmcliEthernetOptions {
  run: NmcliRunner;
  logger: Logger;
  sysClassNet: string;
  /** The wired interface (network.ethernet_interface), read per change so a new value applies. */
  ifname: () => string;
  now: () => number;
  onState: (state: string, error?: string) => void;
}

/**
 * The wired connection through NetworkManager (docs/architecture.md#wi-fi-and-ethernet): enabled,
 * the owned profile replaces itself and is activated in the background; disabled, the profile goes
 * and the interface is disconnected (NetworkManager then activates nothing on it by itself).
 * Callers serialise the changes with the Wi-Fi ones.
 */
export class NmcliEthernet {
  private readonly activations: ProfileActivations;
  private readonly infoCache = new StatusCache<EthernetInfo>(
    () => this.options.now(),
    () => this.readInfo(),
  );

  constructor(private readonly options: NmcliEthernetOptions) {
    this.activations = new ProfileActivations(options);
  }

  async apply(eth: EthernetSettings): Promise<void> {
    this.infoCache.drop();
    const ifname = this.options.ifname();
    await this.deleteProfile();
    if (!eth.enable) {
      await runUnlessMissing(this.options.run, ['device', 'disconnect', ifname]);
      this.options.onState('disabled');
      return;
    }
    await this.options.run(ethernetProfileArgs(eth, ifname));
    this.activate();
  }

  /**
   * At start: settings at their defaults (DHCP, enabled) leave the system's own wired connection
   * alone, so an owned profile left from before (a restore) is removed; other settings are applied
   * when the owned profile is missing.
   */
  async syncAtStart(eth: EthernetSettings, isDefault: boolean): Promise<void> {
    const output = await this.options.run(['-t', '-f', 'NAME', 'connection', 'show']);
    const exists = output.split('\n').some((line) => splitTerseLine(line)[0] === ETHERNET_PROFILE);
    if (isDefault && exists) await this.deleteProfile();
    if (isDefault || exists) {
      this.options.onState(eth.enable ? 'configured' : 'disabled');
      return;
    }
    await this.apply(eth);
  }

  /** The interface status, kept 5 s (StatusCache). */
  info(): Promise<EthernetInfo> {
    return this.infoCache.get();
  }

  private async readInfo(): Promise<EthernetInfo> {
    const ifname = this.options.ifname();
    try {
      const output = await this.options.run(['-t', '-f', INFO_FIELDS, 'device', 'show', ifname]);
      return ethernetInfoOf(output, await carrierUp(this.options.sysClassNet, ifname));
    } catch (error) {
      this.options.logger.debug(`Ethernet status unavailable: ${(error as Error).message}`);
      return NO_ETHERNET;
    }
  }

  async settle(): Promise<void> {
    await this.activations.settle();
  }

  private async deleteProfile(): Promise<void> {
    await runUnlessMissing(this.options.run, ['connection', 'delete', 'id', ETHERNET_PROFILE]);
  }

  /**
   * Activates the profile in the background. No cable is the common case: a failed activation is
   * 'waiting', the profile stays and NetworkManager connects on carrier.
   */
  private activate(): void {
    this.activations.start(ETHERNET_PROFILE, 'waiting', () => {
      this.infoCache.drop();
    });
  }
}
