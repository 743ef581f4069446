import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick for port 0, released at
 * once). Only for a peer that must be told its port before it starts (mosquitto's config file, a
 * Python slave, a container's published port, a port that must refuse connections); where the code
 * under test can listen on port 0 itself and say which port it got, let it.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** A UDP port on 127.0.0.1 that was free a moment ago (see freePort). */
export async function freeUdpPort(): Promise<number> {
  const probe = createSocket('udp4');
  probe.bind(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}
