/**
 * GET /api/v1/mqtt/settings as the device documents it: the secrets shown as lengths. Declared once
 * for the code that builds it and the web page that fills its form (imported type-only).
 */
export type MqttSettingsView = {
  enable: boolean;
  url: string;
  username: string;
  password_len: number;
  client_id: string;
  skip_cn_check: boolean;
  publish: { topic: string; template: string; qos: number; retain: boolean };
  broker: { certificate: string };
  client: { certificate: string; key_len: number; key_password_len: number };
  key_len: number;
  key_password_len: number;
};
