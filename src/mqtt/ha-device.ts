import type { MbusReading, MeterIdentity } from '../reading/reading.js';
import type { EntityDevice } from './ha-entity.js';
import { MBUS_HEAT, MBUS_WATER } from './ha-mbus.js';

export type { EntityDevice } from './ha-entity.js';

/**
 * The `device` and `origin` blocks of Home Assistant discovery configs (HA MQTT discovery device
 * mapping; docs/architecture.md#home-assistant-discovery). The gateway is one HA device; the
 * electricity meter and each M-Bus meter are devices of their own that name the gateway as
 * `via_device`.
 */

export interface DeviceInfo {
  systemId: string;
  name: string;
  model: string;
  firmware: string;
  /** http://<host>:<port>/ of this gateway's API, when known. */
  configurationUrl?: string;
}

/** What the meters said about themselves, for their HA devices. */
export interface MeterFacts {
  identity: MeterIdentity;
  mbus: ReadonlyArray<Pick<MbusReading, 'bus' | 'meterId' | 'deviceType'>>;
}

/** HA device identifier of the gateway; the meters' devices name it as via_device. */
function gatewayIdentifier(systemId: string): string {
  return `meter-gateway-${systemId}`;
}

/** EN 13757-3 §8.4.1 device type -> the name of the M-Bus meter's device. */
function mbusDeviceName(deviceType: number | undefined, bus: number): string {
  if (deviceType === 0x03) return 'Gas meter';
  if (deviceType !== undefined && MBUS_WATER.has(deviceType)) return 'Water meter';
  if (deviceType !== undefined && MBUS_HEAT.has(deviceType)) return 'Heat meter';
  return `M-Bus meter ${bus}`;
}

/** Sets the keys whose value is known; HA rejects nothing for an absent optional key. */
function withKnown(target: Record<string, unknown>, fields: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined && value !== '') target[key] = value;
}

function gatewayBlock(device: DeviceInfo): Record<string, unknown> {
  const block: Record<string, unknown> = {
    identifiers: [gatewayIdentifier(device.systemId)],
    name: device.name,
    manufacturer: 'meter-gateway',
    model: device.model,
    sw_version: device.firmware,
  };
  withKnown(block, { configuration_url: device.configurationUrl });
  return block;
}

/** The `device` block of an entity's config (HA MQTT discovery device mapping). */
export function deviceBlock(
  owner: EntityDevice,
  device: DeviceInfo,
  meters: MeterFacts,
): Record<string, unknown> {
  if (owner === 'gateway') return gatewayBlock(device);
  const gateway = gatewayIdentifier(device.systemId);
  if (owner === 'meter') {
    const { identity } = meters;
    const block: Record<string, unknown> = {
      identifiers: [`${gateway}-meter`],
      name: 'Electricity meter',
      via_device: gateway,
    };
    withKnown(block, {
      manufacturer: identity.vendor ?? identity.prefix,
      model: identity.model,
      serial_number: identity.id,
    });
    return block;
  }
  if ('meter' in owner) {
    // A further meter: a device of its own, linked to the gateway.
    return {
      identifiers: [`${gateway}-meter-${owner.meter}`],
      name: owner.name,
      model: owner.role,
      via_device: gateway,
    };
  }
  const { mbus: bus } = owner;
  const channel = meters.mbus.find((candidate) => candidate.bus === bus);
  const block: Record<string, unknown> = {
    identifiers: [`${gateway}-mbus-${bus}`],
    name: mbusDeviceName(channel?.deviceType, bus),
    via_device: gateway,
  };
  withKnown(block, { serial_number: channel?.meterId });
  return block;
}

/** The `origin` block: which software published the config (HA MQTT discovery origin mapping). */
export function originBlock(device: DeviceInfo): Record<string, unknown> {
  return { name: 'meter-gateway', sw_version: device.firmware };
}
