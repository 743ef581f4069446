import { INTERFACE_NAME_PATTERN } from '../../config/interface-name.js';
import type { EthernetSettings, WifiStationSettings } from '../../config/types.js';
import type { EthernetInfo } from './ethernet-info.js';
import { NmcliEthernet } from './nmcli-ethernet.js';
import type { Logger } from '../../log.js';
import type { WifiBackend } from './wifi-backend.js';
import type { WifiInfo } from './wifi-info.js';
import { carrierUp } from './ethernet-link.js';
import { NMCLI_EXIT, NmcliError, runUnlessMissing, type NmcliRunner } from './nmcli.js';
import { ProfileActivations } from './nmcli-activations.js';
import { StatusCache } from './status-cache.js';
import { parseTerseRecords, splitTerseLine } from './nmcli-terse.js';
import {
  BANDWIDTH_FIELD,
  rssiFromSignal,
  SCAN_FIELDS,
  scanEntriesOf,
  ssidOf,
  type ScanEntry,
} from './scan-entry.js';
import { prefixLengthOf } from '../../config/network-rules.js';

/** The NetworkManager connection profile this daemon owns; other profiles are left alone. */
export const STATION_PROFILE = 'meter-gateway-sta';

/** NM_SETTING_WIRELESS_POWERSAVE_ENABLE (3) / _DISABLE (2) (libnm NMSettingWirelessPowersave). */
const POWERSAVE = { on: '3', off: '2' } as const;

export interface NmcliBackendOptions {
  run: NmcliRunner;
  logger: Logger;
  sysClassNet: string;
  now: () => number;
  onState: (state: string, error?: string) => void;
  ethernetInterface: () => string;
  onEthernetState: (state: string, error?: string) => void;
}

interface DeviceStatus {
  device: string;
  type: string;
  state: string;
  connection: string;
}

/**
 * `nmcli connection add` arguments for the station profile. The password is an argv element (never
 * a shell word); NetworkManager stores it in the profile (keyfile, root-only).
 */
export function stationProfileArgs(
  station: WifiStationSettings,
  powerSave: boolean,
  ifname?: string,
): string[] {
  const args = ['connection', 'add', 'type', 'wifi', 'con-name', STATION_PROFILE];
  if (ifname) args.push('ifname', ifname);
  args.push('802-11-wireless.ssid', station.name, 'connection.autoconnect', 'yes');
  args.push('802-11-wireless.powersave', powerSave ? POWERSAVE.on : POWERSAVE.off);
  if (station.password !== '') args.push('wifi-sec.key-mgmt', 'wpa-psk', 'wifi-sec.psk', station.password);
  if (station.static_ip) {
    const prefix = prefixLengthOf(station.netmask);
    args.push('ipv4.method', 'manual', 'ipv4.addresses', `${station.ip}/${prefix}`);
    args.push('ipv4.gateway', station.gateway, 'ipv4.dns', station.dns);
  } else {
    args.push('ipv4.method', 'auto');
  }
  return args;
}

/**
 * NetworkManager backend (docs/architecture.md#wi-fi-and-ethernet). Changes run one at a time; activation
 * runs in the background (an absent access point must not hold up the API) and its outcome is the service
 * state. max_power is stored only: NetworkManager has no working transmit-power setting, and `iw ... set
 * txpower` needs CAP_NET_ADMIN, which the unit does not grant.
 */
export class NmcliWifiBackend implements WifiBackend {
  readonly kind = 'nmcli';
  private queue: Promise<unknown> = Promise.resolve();
  private bandwidthKnown = true;
  private readonly infoCache = new StatusCache<WifiInfo>(
    () => this.options.now(),
    () => this.readInfo(),
  );
  private readonly activations: ProfileActivations;
  private readonly ethernet: NmcliEthernet;

  constructor(private readonly options: NmcliBackendOptions) {
    this.activations = new ProfileActivations(options);
    this.ethernet = new NmcliEthernet({
      run: options.run,
      logger: options.logger,
      sysClassNet: options.sysClassNet,
      ifname: options.ethernetInterface,
      now: options.now,
      onState: options.onEthernetState,
    });
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async scan(): Promise<ScanEntry[]> {
    const fields: string[] = [...SCAN_FIELDS, ...(this.bandwidthKnown ? [BANDWIDTH_FIELD] : [])];
    let output: string;
    try {
      output = await this.options.run([
        '-t',
        '-f',
        fields.join(','),
        'device',
        'wifi',
        'list',
        '--rescan',
        'auto',
      ]);
    } catch (error) {
      // NetworkManager before 1.44 has no BANDWIDTH field and rejects the field list (exit 2)
      if (this.bandwidthKnown && error instanceof NmcliError && error.exitCode === NMCLI_EXIT.INVALID_INPUT) {
        this.bandwidthKnown = false;
        return this.scan();
      }
      throw error;
    }
    const { records, rejected } = parseTerseRecords(output, fields);
    if (rejected.length > 0)
      this.options.logger.debug(`nmcli scan: ${rejected.length} unreadable line(s) skipped`);
    return scanEntriesOf(records);
  }

  applyStation(station: WifiStationSettings, powerSave: boolean): Promise<void> {
    this.infoCache.drop();
    return this.serial(async () => {
      await this.deleteProfile();
      if (!station.enable || station.name === '') {
        this.options.onState('disabled');
        return;
      }
      await this.addProfile(station, powerSave);
    });
  }

  clearStation(): Promise<void> {
    this.infoCache.drop();
    return this.serial(async () => {
      await this.deleteProfile();
      this.options.onState('disabled');
    });
  }

  syncAtStart(station: WifiStationSettings, powerSave: boolean): Promise<void> {
    return this.serial(async () => {
      const exists = await this.profileExists();
      if (!station.enable || station.name === '') {
        if (exists) await this.deleteProfile();
        this.options.onState('disabled');
      } else if (!exists) {
        await this.addProfile(station, powerSave);
      } else {
        const active = (await this.devices()).some(
          (d) => d.connection === STATION_PROFILE && d.state === 'connected',
        );
        this.options.onState(active ? 'connected' : 'disconnected');
      }
    });
  }

  /** Sets power saving on this daemon's profile and on the active Wi-Fi connection, re-activating it. */
  setPowerSave(enabled: boolean): Promise<void> {
    return this.serial(async () => {
      const devices = await this.devices();
      const targets = new Set(
        devices.filter((d) => d.type === 'wifi' && d.connection !== '').map((d) => d.connection),
      );
      if (await this.profileExists()) targets.add(STATION_PROFILE);
      for (const name of targets) {
        await this.options.run([
          'connection',
          'modify',
          'id',
          name,
          '802-11-wireless.powersave',
          enabled ? POWERSAVE.on : POWERSAVE.off,
        ]);
        if (devices.some((d) => d.connection === name)) this.activate(name);
      }
    });
  }

  /**
   * Ethernet link up: NetworkManager shows an Ethernet device without carrier as 'unavailable', so
   * 'connected', 'connecting (...)' and 'disconnected' all mean a link; an unmanaged device is
   * judged by its sysfs carrier.
   */
  async ethernetLinkUp(): Promise<boolean> {
    for (const device of await this.devices()) {
      if (device.type !== 'ethernet') continue;
      if (
        device.state === 'connected' ||
        device.state === 'disconnected' ||
        device.state.startsWith('connecting')
      )
        return true;
      if (device.state === 'unmanaged' && (await carrierUp(this.options.sysClassNet, device.device)))
        return true;
    }
    return false;
  }

  wifiInfo(): Promise<WifiInfo> {
    return this.infoCache.get();
  }

  private async readInfo(): Promise<WifiInfo> {
    try {
      const wifi = (await this.devices()).find((d) => d.type === 'wifi' && d.state === 'connected');
      if (!wifi) return { ssid: '', ip: '' };
      const apFields = ['ACTIVE', 'BSSID', 'SSID-HEX', 'SSID', 'CHAN', 'SIGNAL'];
      const apOutput = await this.options.run([
        '-t',
        '-f',
        apFields.join(','),
        'device',
        'wifi',
        'list',
        '--rescan',
        'no',
        'ifname',
        wifi.device,
      ]);
      const ap = parseTerseRecords(apOutput, apFields).records.find((record) => record.ACTIVE === 'yes');
      const ipOutput = await this.options.run(['-t', '-f', 'IP4.ADDRESS', 'device', 'show', wifi.device]);
      const address = ipOutput
        .split('\n')
        .map(splitTerseLine)
        .find((fields) => fields[0]?.startsWith('IP4.ADDRESS'));
      const ip = address?.[1]?.split('/')[0] ?? '';
      if (!ap) return { ssid: '', ip };
      return {
        ssid: ssidOf(ap['SSID-HEX'], ap.SSID ?? ''),
        ip,
        rssi: rssiFromSignal(Number(ap.SIGNAL)),
        signal: Number(ap.SIGNAL),
        bssid: (ap.BSSID ?? '').toUpperCase(),
        channel: Number(ap.CHAN),
      };
    } catch (error) {
      this.options.logger.debug(`Wi-Fi status unavailable: ${(error as Error).message}`);
      return { ssid: '', ip: '' };
    }
  }

  private async devices(): Promise<DeviceStatus[]> {
    const fields = ['DEVICE', 'TYPE', 'STATE', 'CONNECTION'];
    const output = await this.options.run(['-t', '-f', fields.join(','), 'device', 'status']);
    // A device name goes back to nmcli as an argument: one that is not an interface name as the
    // config accepts it (one starting with '-' would read as an option) is not used.
    return parseTerseRecords(output, fields)
      .records.filter((r) => INTERFACE_NAME_PATTERN.test(r.DEVICE ?? ''))
      .map((r) => ({
        device: r.DEVICE!,
        type: r.TYPE!,
        state: r.STATE!,
        connection: r.CONNECTION!,
      }));
  }

  private async profileExists(): Promise<boolean> {
    const output = await this.options.run(['-t', '-f', 'NAME', 'connection', 'show']);
    return output.split('\n').some((line) => splitTerseLine(line)[0] === STATION_PROFILE);
  }

  private async deleteProfile(): Promise<void> {
    await runUnlessMissing(this.options.run, ['connection', 'delete', 'id', STATION_PROFILE]);
  }

  private async addProfile(station: WifiStationSettings, powerSave: boolean): Promise<void> {
    const wifiDevice = (await this.devices()).find((d) => d.type === 'wifi');
    await this.options.run(stationProfileArgs(station, powerSave, wifiDevice?.device));
    this.activate(STATION_PROFILE);
  }

  /** Activates a profile in the background; the result becomes the 'wifi' service state. */
  private activate(profile: string): void {
    this.activations.start(profile, 'error', () => {
      this.infoCache.drop();
    });
  }

  applyEthernet(eth: EthernetSettings): Promise<void> {
    return this.serial(() => this.ethernet.apply(eth));
  }

  syncEthernetAtStart(eth: EthernetSettings, isDefault: boolean): Promise<void> {
    return this.serial(() => this.ethernet.syncAtStart(eth, isDefault));
  }

  ethernetInfo(): Promise<EthernetInfo> {
    return this.ethernet.info();
  }

  async settle(): Promise<void> {
    await this.queue;
    await this.activations.settle();
    await this.ethernet.settle();
  }
}
