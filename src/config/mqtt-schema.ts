/**
 * mqtt of the convict schema (assembled in schema.ts): the broker connection, the template
 * message, TLS material and Home Assistant discovery (/api/v1/mqtt/settings).
 */
import { bool, int, secret, text } from './schema-leaves.js';

export const MQTT_SCHEMA = {
  enable: bool(false, 'MQTT client enabled.'),
  url: text('', 512, 'Broker URL, mqtt://host:port or mqtts://host:port.'),
  username: text('', 256, 'Broker user name.'),
  password: secret(256, 'Broker password (write-only; GET shows password_len).'),
  client_id: text('', 128, 'MQTT client id (empty: meter-gateway-<system id>).'),
  skip_cn_check: bool(false, 'Skip only the broker host name check (the CA chain is still verified).'),
  publish: {
    topic: text('meter-gateway/${sys.id}/report', 256, 'Topic of the template message.'),
    template: text(
      '{"P_In":${1_7_0},"P_Out":${2_7_0},"E_In":${1_8_0},"E_Out":${2_8_0},"Sys":{"Id":"${sys.id}"}}',
      8192,
      'Payload template in which each ${variable} is replaced by its value (docs/architecture.md#mqtt-template).',
    ),
    qos: int(0, 0, 2, 'QoS of published messages (0..2).'),
    retain: bool(false, 'Retain flag of published messages.'),
  },
  broker: { certificate: text('', 8192, 'PEM CA certificate of the broker.') },
  client: {
    certificate: text('', 8192, 'PEM client certificate.'),
    key: secret(8192, 'PEM client private key (write-only).'),
    key_password: secret(256, 'Passphrase of the client key (write-only).'),
  },
  discovery: {
    enable: bool(true, 'Home Assistant MQTT discovery (also settable through /api/v1/mqtt/discovery).'),
    prefix: text('homeassistant', 128, 'Home Assistant discovery prefix (daemon-only key).'),
    configuration_url: text(
      '',
      2048,
      'Device link in Home Assistant (daemon-only key; the add-on sets its ingress panel); empty: http://<address>:<http.port>/.',
    ),
    state_interval: int(
      10,
      0,
      3600,
      "Seconds between Home Assistant state messages (10, as HA's own DSMR integration; 0: every reading; also settable through /api/v1/mqtt/discovery).",
    ),
  },
};
