/**
 * Settings objects of the HTTP routes that the web page reads, declared once for the route that
 * answers and the page (imported type-only).
 */

/** GET /api/v1/meter/settings: the key and a remote source's password shown as lengths. */
export type MeterSettingsView = {
  source: string;
  source_password_len: number;
  conv_factor: number;
  key_len: number;
};
