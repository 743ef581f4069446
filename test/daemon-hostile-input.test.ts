import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createAppContext } from '../src/context.js';
import { registerConfigFormats } from '../src/config-formats.js';
import { MdnsAnnouncer } from '../src/device/mdns.js';
import { runOutput } from '../src/output-runner.js';
import { silentLogger } from './helpers/log-lines.js';
import { startDaemonProcess } from './helpers/daemon-process.js';
import { hasCommand, requirePeer } from './helpers/environment.js';
import { freePort, freeUdpPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

/**
 * Hostile input on every listener of a real daemon process (docs/architecture.md#hostile-input):
 * random datagrams, TCP byte streams and WebSocket frames, plus a datagram from source port 0
 * forged through a raw socket. The process must stay up and keep answering.
 */

/** A seeded generator (mulberry32), so a failing run can be repeated with its seed. */
function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random bytes, sometimes shaped like the protocol (JSON-RPC text, a Modbus MBAP header). */
function payloadOf(random: () => number, shape: 'json' | 'modbus' | 'raw'): Buffer {
  const length = Math.floor(random() * (random() < 0.1 ? 5000 : 300));
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  if (shape === 'json' && random() < 0.5) {
    const methods = ['EM.GetStatus', 'Shelly.GetDeviceInfo', 'EM1.GetStatus', '__proto__', ''];
    const method = methods[Math.floor(random() * methods.length)];
    const id = random() < 0.5 ? Math.floor(random() * 1e9) : '{"a":[[[[1]]]]}';
    return Buffer.from(
      `{"id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${bytes.length % 2 ? 'null' : '{"id":-1}'}}`,
    );
  }
  if (shape === 'modbus' && length >= 8) {
    bytes.writeUInt16BE(0, 2);
    bytes.writeUInt16BE(Math.min(length - 6, random() < 0.5 ? 255 : 65535), 4);
  }
  return bytes;
}

/**
 * One UDP datagram from source port 0 to 127.0.0.1:`port`, built by hand (RFC 768 header,
 * checksum 0 = none, allowed over IPv4) and sent on a raw socket: the kernel refuses port 0 as a
 * source on an ordinary socket. Needs root (CAP_NET_RAW) and python3.
 */
function sendFromPortZero(port: number, payload: Buffer): void {
  const script = [
    'import socket, struct, sys',
    'data = bytes.fromhex(sys.argv[2])',
    's = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)',
    "s.sendto(struct.pack('!HHHH', 0, int(sys.argv[1]), 8 + len(data), 0) + data, ('127.0.0.1', 0))",
  ].join('\n');
  execFileSync('python3', ['-c', script, String(port), payload.toString('hex')]);
}

function rawSocketAllowed(): boolean {
  if (!hasCommand('python3')) return false;
  try {
    execFileSync(
      'python3',
      ['-c', 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)'],
      { stdio: 'ignore' },
    );
    return true;
  } catch {
    return false;
  }
}

async function tcpBurst(port: number, chunks: Buffer[]): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  try {
    await once(socket, 'connect');
    for (const chunk of chunks) socket.write(chunk);
    socket.end();
    await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  } catch {
    // refused or reset: the daemon's choice, what counts is that it stays up
  } finally {
    socket.destroy();
  }
}

async function webSocketBurst(url: string, random: () => number, count: number): Promise<void> {
  const client = new WebSocket(url);
  client.on('error', () => undefined);
  try {
    await once(client, 'open');
    for (let i = 0; i < count; i++) {
      const payload = payloadOf(random, 'json');
      client.send(random() < 0.7 ? payload.toString('utf8') : payload, { binary: random() < 0.3 });
    }
  } catch {
    // the server may refuse or close: fine
  } finally {
    client.terminate();
  }
}

test('random datagrams, TCP streams and WebSocket frames on every listener leave the daemon up', async (t) => {
  const seed = Number(process.env.HOSTILE_SEED ?? 20261129);
  const random = randomOf(seed);
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hostile-'));
  const [modbusPort, proxyPort, udpPort] = [await freePort(), await freePort(), await freeUdpPort()];
  const daemon = await startDaemonProcess(state, {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(modbusPort),
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
    METER_GATEWAY_SERVICES_METER_PROXY: 'true',
    METER_GATEWAY_METER_PROXY_PORT: String(proxyPort),
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
    // Only the free port above: the default further port 2220 may be another daemon's.
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: '',
  });
  t.after(() => daemon.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  const alive = () => {
    assert.equal(
      daemon.child.exitCode,
      null,
      `seed ${seed}: daemon exited:\n${daemon.output().slice(-3000)}`,
    );
    assert.equal(daemon.child.signalCode, null, `seed ${seed}: daemon killed`);
  };
  await waitFor('the UDP responder', daemon.output, (output) => output.includes('shelly: udp: listening'));
  const httpPort = Number(new URL(daemon.baseUrl).port);

  // Shelly UDP: the datagram from port 0 first (the reported crash), then random ones.
  if (requirePeer(t, rawSocketAllowed(), 'a raw socket (root and python3) to forge source port 0')) {
    sendFromPortZero(udpPort, Buffer.from('{"id":1,"method":"EM.GetStatus","params":{"id":0}}'));
    sendFromPortZero(udpPort, Buffer.from('x'));
  }
  const udp = createSocket('udp4');
  udp.on('message', () => undefined);
  t.after(() => udp.close());
  for (let i = 0; i < 400; i++) udp.send(payloadOf(random, 'json'), udpPort, '127.0.0.1');
  await new Promise((resolve) => setTimeout(resolve, 300));
  alive();

  // Modbus TCP slave, meter proxy and the HTTP port: random byte streams.
  for (let i = 0; i < 30; i++) {
    const chunks = Array.from({ length: 1 + Math.floor(random() * 8) }, () => payloadOf(random, 'modbus'));
    await Promise.all([
      tcpBurst(modbusPort, chunks),
      tcpBurst(proxyPort, chunks),
      tcpBurst(httpPort, chunks),
    ]);
  }
  alive();

  // HTTP requests with hostile targets and headers, the WebSocket upgrade with broken keys.
  const targets = [
    '/rpc/%E0%A4%A',
    '/api/v1/meters/%ZZ/live',
    '/rpc/%',
    '/api/v1/live?%%%',
    '/%00',
    '//..//..',
  ];
  for (const target of targets)
    await tcpBurst(httpPort, [Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)]);
  await tcpBurst(httpPort, [
    Buffer.from('GET /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'),
    Buffer.from('Sec-WebSocket-Version: 99\r\nSec-WebSocket-Key: !!\r\n\r\n'),
  ]);

  // WebSocket /rpc: random text and binary frames.
  for (let i = 0; i < 10; i++) await webSocketBurst(`ws://127.0.0.1:${httpPort}/rpc`, random, 40);
  alive();

  // SSE /api/v1/live: connections opened and dropped at once, and with garbage after the request.
  for (let i = 0; i < 20; i++)
    await tcpBurst(httpPort, [
      Buffer.from('GET /api/v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
      payloadOf(random, 'raw'),
    ]);
  alive();

  const system = await fetch(`${daemon.baseUrl}/api/v1/system`);
  assert.equal(system.status, 200);
  await system.arrayBuffer();
  // Still answering on UDP after the flood.
  udp.send('{"id":7,"method":"EM.GetStatus","params":{"id":0}}', udpPort, '127.0.0.1');
  const [answer] = (await once(udp, 'message')) as [Buffer];
  assert.match(answer.toString(), /"id":7/);
  alive();
});

test('random datagrams and forged queries on the mDNS responder leave it answering', async (t) => {
  registerConfigFormats();
  const port = await freeUdpPort();
  const context = createAppContext({
    env: { METER_GATEWAY_SYSTEM_HOST_NAME: 'gw-hostile' },
    stateDir: mkdtempSync(join(tmpdir(), 'meter-gateway-mdns-hostile-')),
    logger: silentLogger(),
  });
  // Unicast on loopback only: no multicast group is joined, answers go back to 127.0.0.1.
  const announcer = new MdnsAnnouncer(context, context.logger, {
    port,
    ip: '127.0.0.1',
    interface: '127.0.0.1',
    bind: '127.0.0.1',
    multicast: false,
  });
  const output = runOutput(context, announcer);
  context.services.set('http', { state: 'running', host: '127.0.0.1', port: 8080 });
  await output.start();
  t.after(async () => {
    await output.stop();
    context.store.close();
  });
  const random = randomOf(7);
  const udp = createSocket('udp4');
  udp.on('message', () => undefined);
  t.after(() => udp.close());
  for (let i = 0; i < 300; i++) udp.send(payloadOf(random, 'raw'), port, '127.0.0.1');
  // Well-formed headers with random questions: counts that do not match the records that follow.
  for (let i = 0; i < 300; i++) {
    const packet = payloadOf(random, 'raw');
    if (packet.length >= 12) packet.writeUInt16BE(0, 2);
    udp.send(packet, port, '127.0.0.1');
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  // An exception thrown in the responder's handlers would have ended this process; its state
  // says it still runs.
  assert.equal(context.services.get('mdns')?.state, 'running');
});
