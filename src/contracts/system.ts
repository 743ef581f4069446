import Type, { type Static } from 'typebox';
import { SystemMeterSchema } from './reading.js';

/**
 * GET /api/v1/system and GET /api/v1/health: the device's fields (identity, meter, Wi-Fi, Ethernet,
 * SD card, services, counters) and, beside them, this process (`runtime`), the access state and
 * the outputs' health (docs/architecture.md#health).
 */

/** The `ethernet` object (the device's EthernetInfo). */
export const EthernetInfoSchema = Type.Object(
  {
    mac: Type.String(),
    status: Type.Enum(['Up', 'Down']),
    ip: Type.String(),
    mask: Type.String(),
    gateway: Type.String(),
    dns: Type.String(),
  },
  { additionalProperties: false },
);
export type EthernetInfoView = Static<typeof EthernetInfoSchema>;

/** The `sd_card` object: the folder standing in for the device's SD card. */
export const SdCardSchema = Type.Object(
  {
    installed: Type.Boolean(),
    type: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    speed: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type SdCardView = Static<typeof SdCardSchema>;

/** GET /api/v1/health, also /api/v1/system's `health` (not a field of the device). */
export const HealthSchema = Type.Object({
  status: Type.Enum(['ok', 'degraded', 'failing']),
  failed: Type.Array(Type.Object({ output: Type.String(), error: Type.String() })),
  degraded: Type.Array(Type.Object({ output: Type.String(), error: Type.String() }), {
    description: 'what makes the process degraded: the meter reading is stale (meter.timeout)',
  }),
  reading_age_s: Type.Integer({
    minimum: 0,
    description: 'seconds since the latest valid meter reading (since the start while there was none)',
  }),
});
export type HealthView = Static<typeof HealthSchema>;

/** One address of a network interface (loopback left out). */
export const AddressSchema = Type.Object({
  interface: Type.String(),
  address: Type.String(),
  family: Type.Enum(['IPv4', 'IPv6']),
});
export type AddressView = Static<typeof AddressSchema>;

/** `runtime`: the process beside the device's documented fields. */
export const RuntimeSchema = Type.Object(
  {
    version: Type.String(),
    node: Type.String(),
    uptime_s: Type.Integer({ description: 'seconds since the process started' }),
    memory: Type.Object({
      rss_bytes: Type.Integer(),
      heap_used_bytes: Type.Integer(),
      heap_total_bytes: Type.Integer(),
      external_bytes: Type.Integer(),
    }),
    addresses: Type.Array(AddressSchema),
  },
  { description: 'this process (not a field of the device)' },
);
export type RuntimeView = Static<typeof RuntimeSchema>;

/** A service line of `services`: its state, the error of a failed one, service-specific fields. */
export const ServiceStatusSchema = Type.Intersect([
  Type.Object({
    state: Type.String(),
    error: Type.Optional(Type.String()),
    execution_status: Type.Optional(Type.Object({ state: Type.String() })),
  }),
  Type.Record(Type.String(), Type.Unknown()),
]);
export type ServiceStatusView = Static<typeof ServiceStatusSchema>;

export const DeviceSchema = Type.Object({
  name: Type.String(),
  host_name: Type.String(),
  id: Type.String({ pattern: '^[0-9A-F]{12}$' }),
  model: Type.String(),
  firmware: Type.String(),
  build: Type.String(),
  upgrade_capable: Type.Boolean(),
  date: Type.String(),
  time: Type.String(),
  boot_id: Type.String(),
  time_since_boot: Type.Number(),
  last_reboot: Type.Object({ date: Type.String(), time: Type.String() }),
  license: Type.Object({
    type: Type.Enum(['FREE', 'PLUS', 'PRO']),
    activation_date: Type.String(),
  }),
});
export type DeviceView = Static<typeof DeviceSchema>;

/** The `wifi` object: ssid and ip always, the link's other facts as strings or numbers. */
export const WifiInfoSchema = Type.Intersect([
  Type.Object({ ssid: Type.String(), ip: Type.String() }),
  Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
]);
export type WifiInfoView = Static<typeof WifiInfoSchema>;

export const AccessSchema = Type.Object(
  {
    protection: Type.Boolean(),
    password_set: Type.Boolean(),
    addon: Type.Boolean({ description: 'running as a Home Assistant add-on' }),
    locked: Type.Array(Type.String(), {
      description: "setting paths locked by the add-on's options (writes changing them: 409)",
    }),
  },
  { description: 'password protection (not a field of the device)' },
);
export type AccessView = Static<typeof AccessSchema>;

/** GET /api/v1/system. */
export const SystemViewSchema = Type.Object({
  device: DeviceSchema,
  meter: SystemMeterSchema,
  wifi: WifiInfoSchema,
  ethernet: EthernetInfoSchema,
  sd_card: SdCardSchema,
  services: Type.Record(Type.String(), ServiceStatusSchema),
  counters: Type.Record(Type.String(), Type.Integer()),
  runtime: RuntimeSchema,
  access: AccessSchema,
  health: HealthSchema,
});
export type SystemView = Static<typeof SystemViewSchema>;
