import Type, { type Static } from 'typebox';

/** The Wi-Fi scan list and the Ethernet settings (the whatwatt Go's WiFiScanEntry and EthernetSettings). */

/** An element of GET /api/v1/wifi/scan. */
export const ScanEntrySchema = Type.Object({
  ssid: Type.String({ maxLength: 32 }),
  bssid: Type.String({ description: 'MAC address of the access point, upper-case, colon-separated' }),
  channel: Type.Integer({ description: '1..13' }),
  ht: Type.Optional(
    Type.Enum(['20', '40+', '40-'], {
      description: "only when the channel width and the secondary channel's side are known",
    }),
  ),
  rssi: Type.Number({ minimum: -127, maximum: 0, description: 'dBm' }),
  signal: Type.Number({ minimum: 0, maximum: 100, description: '%' }),
  auth_mode: Type.String(),
  pairwise_cipher: Type.String(),
  group_cipher: Type.String(),
});
export type ScanEntry = Static<typeof ScanEntrySchema>;

/** The address of an interface (Wi-Fi station, Ethernet): DHCP, or static with these values. */
const addressFields = {
  static_ip: Type.Boolean(),
  ip: Type.String(),
  netmask: Type.String(),
  gateway: Type.String(),
  dns: Type.String(),
};

/** GET /api/v1/ethernet. */
export const EthernetSettingsSchema = Type.Object({ enable: Type.Boolean(), ...addressFields });
export type EthernetSettingsView = Static<typeof EthernetSettingsSchema>;

/** The body of PUT and POST /api/v1/eth/settings: any of the fields (PUT merges, POST starts from the defaults). */
export const EthernetSettingsWriteSchema = Type.Partial(EthernetSettingsSchema);

/** GET /api/v1/wifi/scan. */
export const ScanListSchema = Type.Array(ScanEntrySchema);

/**
 * GET /api/v1/wifi/sta/settings: the station settings, the password as its length, `max_tx_power`
 * the device's alias of `max_power`.
 */
export const WifiStationViewSchema = Type.Object({
  enable: Type.Boolean(),
  name: Type.String({ description: 'network name (SSID)' }),
  password_len: Type.Integer({ minimum: 0 }),
  ...addressFields,
  max_power: Type.Number({ description: 'dBm' }),
  max_tx_power: Type.Number({ description: 'dBm, the same as max_power' }),
});
export type WifiStationView = Static<typeof WifiStationViewSchema>;
