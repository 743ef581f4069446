import { emDataStatus, emStatus, type EmStatus } from './em-status.js';
import type { Reading } from '../../reading/reading.js';

/**
 * The Pro 3EM's identity and system answers, docs/architecture.md#shelly-pro-3em. Shapes from the
 * Gen2 API documentation (Shelly.GetDeviceInfo, Sys status, Shelly.GetConfig) and device answers
 * posted in public bug reports: bieniu/ha-shellies-discovery-gen2#468 (a Pro 3EM's
 * `{"name":null,"id":"shellypro3em400-3ce90e6f132c","mac":...,"model":"SPEM-003CEBEU400","gen":2,
 * "fw_id":...,"ver":...,"app":"Pro3EM","auth_en":false,"auth_domain":null}`) and evcc-io/evcc#12385
 * (a Pro EM's Shelly.GetStatus with its `sys` block). The model without the 400 suffix is the
 * 120 A Pro 3EM; the device id is `shellypro3em-` and the MAC in lower case.
 */

/** A Pro line firmware release as devices report it (evcc-io/evcc#20060, Pro EM on 1.4.4). */
export const SHELLY_FIRMWARE = { fwId: '20241011-114451/1.4.4-g6d2a586', ver: '1.4.4' } as const;

export interface ShellyIdentity {
  /** The gateway's system id: 12 upper-case hex digits. */
  systemId: string;
  /** The device name the user gave, or null like an unnamed device. */
  name: string | null;
}

/** Facts of the gateway that the `sys` status carries, taken live by the caller. */
export interface SysFacts {
  /** Wall clock in ms since the epoch. */
  now: number;
  uptimeSeconds: number;
  ramSize: number;
  ramFree: number;
  /** "HH:MM" local time, as the device shows it. */
  localTime: string;
}

export function shellyDeviceId(systemId: string): string {
  return `shellypro3em-${systemId.toLowerCase()}`;
}

/** `Shelly.GetDeviceInfo` and `GET /shelly` (the same object on Gen2). */
export function deviceInfo(identity: ShellyIdentity): Record<string, unknown> {
  return {
    name: identity.name,
    id: shellyDeviceId(identity.systemId),
    mac: identity.systemId.toUpperCase(),
    model: 'SPEM-003CEBEU',
    gen: 2,
    fw_id: SHELLY_FIRMWARE.fwId,
    ver: SHELLY_FIRMWARE.ver,
    app: 'Pro3EM',
    auth_en: false,
    auth_domain: null,
    profile: 'triphase',
  };
}

/** `Sys.GetStatus`. No update is offered; configuration revisions never change (read-only device). */
export function sysStatus(identity: ShellyIdentity, facts: SysFacts): Record<string, unknown> {
  return {
    mac: identity.systemId.toUpperCase(),
    restart_required: false,
    time: facts.localTime,
    unixtime: Math.floor(facts.now / 1000),
    uptime: Math.floor(facts.uptimeSeconds),
    ram_size: facts.ramSize,
    ram_free: facts.ramFree,
    fs_size: 0,
    fs_free: 0,
    cfg_rev: 0,
    kvs_rev: 0,
    schedule_rev: 0,
    webhook_rev: 0,
    available_updates: {},
  };
}

/** `Shelly.GetStatus`: every component's status, keyed `<type>:<id>` as the device does. */
export function shellyStatus(
  identity: ShellyIdentity,
  facts: SysFacts,
  reading: Reading | undefined,
  em: EmStatus = emStatus(reading),
  emData: EmStatus = emDataStatus(reading),
): Record<string, unknown> {
  return {
    ble: {},
    cloud: { connected: false },
    'em:0': em,
    'emdata:0': emData,
    eth: { ip: null },
    modbus: {},
    mqtt: { connected: false },
    sys: sysStatus(identity, facts),
    ws: { connected: false },
  };
}

/** `Shelly.GetConfig`: the triphase profile, cloud, MQTT and outbound websocket off. */
export function shellyConfig(identity: ShellyIdentity): Record<string, unknown> {
  return {
    ble: { enable: false, rpc: { enable: false } },
    cloud: { enable: false, server: null },
    'em:0': {
      id: 0,
      name: null,
      blink_mode_selector: 'active_energy',
      phase_selector: 'all',
      monitor_phase_sequence: false,
      ct_type: '120A',
    },
    'emdata:0': {},
    eth: { enable: true, ipv4mode: 'dhcp', ip: null, netmask: null, gw: null, nameserver: null },
    modbus: { enable: false },
    mqtt: { enable: false, server: null, client_id: shellyDeviceId(identity.systemId), user: null },
    sys: {
      device: {
        name: identity.name,
        mac: identity.systemId.toUpperCase(),
        fw_id: SHELLY_FIRMWARE.fwId,
        discoverable: true,
        eco_mode: false,
        profile: 'triphase',
      },
      ui_data: {},
      rpc_udp: { dst_addr: null, listen_port: null },
      cfg_rev: 0,
    },
    ws: { enable: false, server: null, ssl_ca: 'ca.pem' },
  };
}
