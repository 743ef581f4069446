/**
 * How one connection attempt of the broker link (src/mqtt/broker-link.ts) is made: mqtt.js's client
 * class, loaded on first use, its options (MQTT 3.1.1, clean session, no reconnect or resubscribe of
 * its own) and the attempt's socket, TCP or TLS, with TCP_NODELAY.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, createSecureContext, type TLSSocket } from 'node:tls';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { LinkOptions } from './connection-options.js';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * mqtt.js's client class is loaded by the first connection attempt, not at start-up: a gateway
 * with MQTT off never holds it. Only the client module is loaded, not the package index, which
 * also brings the WebSocket, Alibaba and WeChat transports the broker link never uses (the socket
 * comes from openSocket below): about half the resident memory of the whole package.
 */
let mqttClientClass: Promise<typeof MqttClient> | undefined;
export function loadMqttClient(): Promise<typeof MqttClient> {
  // A CommonJS module with `exports.default`: its namespace's default is the exports object.
  return (mqttClientClass ??= import('mqtt/lib/client').then((module) => module.default.default));
}

/** The client options of one attempt (mqtt.js's own reconnect and resubscribe off, QoS 0 never queued). */
export function clientOptionsOf(options: LinkOptions): IClientOptions {
  const clientOptions: IClientOptions = {
    clientId: options.clientId,
    protocolVersion: 4,
    clean: true,
    keepalive: options.keepaliveSeconds,
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    queueQoSZero: false,
    resubscribe: false,
    // Without this, mqtt-packet builds a table of 65,536 two-byte Buffers (one per packet id, about
    // 6 MB of heap) on the first packet; the gateway sends a few packets a second.
    writeCache: false,
  };
  if (options.username !== undefined) clientOptions.username = options.username;
  if (options.password !== undefined) clientOptions.password = options.password;
  if (options.will) clientOptions.will = { ...options.will, payload: Buffer.from(options.will.payload) };
  return clientOptions;
}

/**
 * The socket of one attempt, with TCP_NODELAY. For TLS the chain is always verified
 * (rejectUnauthorized); skip_cn_check replaces only the RFC 6125 host name check.
 */
export function openSocket(options: LinkOptions): Socket | TLSSocket {
  const { host, port } = options.address;
  const tls = options.tls;
  if (!tls) return netConnect({ host, port }).setNoDelay(true);
  const secureContext = createSecureContext({
    ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls.key !== undefined ? { key: tls.key } : {}),
    ...(tls.passphrase !== undefined ? { passphrase: tls.passphrase } : {}),
  });
  const socket = tlsConnect({
    host,
    port,
    secureContext,
    rejectUnauthorized: true,
    ...(tls.servername !== undefined ? { servername: tls.servername } : {}),
    checkServerIdentity: tls.skipHostnameCheck ? () => undefined : checkServerIdentity,
  });
  socket.setNoDelay(true);
  return socket;
}
