// Child process of mdns-browse.test.ts and web/meters-discover.test.ts, run inside a network namespace.
//   dongles [hostile]: answers PTR questions for _hwenergy._tcp, _shelly._tcp and _http._tcp as a
//             HomeWizard P1 meter and a Shelly Pro 3EM do (plus a Gen1 Shelly and a plain web
//             server, which are no dongles); with "hostile" it first sends undecodable datagrams, a
//             compression-pointer loop and an answer of 500 records to the querier. Prints "ready".
//   browse <system id> <ms> [<max devices>]: runs browseDongles, prints {devices, refusals} as JSON.
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';
import makeMdns from 'multicast-dns';
import type { Answer } from 'dns-packet';
import { browseDongles } from '../../src/device/mdns-browse.js';
import { Refusals } from '../../src/refusals.js';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../helpers/log-lines.js';

const [mode, arg] = process.argv.slice(2);

/** The records a responder sends for one service instance (RFC 6763 §12.1 additionals). */
function instance(
  type: string,
  label: string,
  host: string,
  port: number,
  txt: string[],
  address: string,
): Answer[] {
  const name = `${label}.${type}.local`;
  return [
    { name: `${type}.local`, type: 'PTR', ttl: 120, data: name },
    { name, type: 'SRV', ttl: 120, data: { port, target: `${host}.local` } },
    { name, type: 'TXT', ttl: 120, data: txt },
    { name: `${host}.local`, type: 'A', ttl: 120, data: address },
  ];
}

/** A DNS response header (id 0, QR and AA set) with the given counts, then `body`. */
function header(answers: number, body: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0x8400, 2);
  head.writeUInt16BE(answers, 6);
  return Buffer.concat([head, body]);
}

/** Hostile datagrams: garbage, a name whose compression pointer points at itself, a truncated record. */
function hostileDatagrams(): Buffer[] {
  const garbage = Buffer.from('\xff\x00 not a dns packet at all \x01\x02', 'latin1');
  // Offset 12: a pointer (0xc00c) to offset 12 itself, a loop a decoder without a guard never leaves.
  const loop = header(1, Buffer.from([0xc0, 0x0c, 0x00, 0x0c, 0x00, 0x01, 0, 0, 0, 120, 0, 2, 0xc0, 0x0c]));
  const truncated = header(3, Buffer.from([7, 0x5f, 0x73, 0x68]));
  return [garbage, loop, truncated];
}

if (mode === 'dongles') {
  const own = arg === 'hostile';
  const address = process.argv[4] ?? '10.231.79.2';
  const records = [
    ...instance(
      '_hwenergy._tcp',
      'p1meter-334455',
      'p1meter-334455',
      80,
      [
        'api_enabled=1',
        'path=/api/v1',
        'serial=5c2faf334455',
        'product_name=P1 Meter',
        'product_type=HWE-P1',
      ],
      address,
    ),
    ...instance(
      '_shelly._tcp',
      'shellypro3em-c8f09e8e1234',
      'shellypro3em-c8f09e8e1234',
      8080,
      ['gen=2', 'app=Pro3EM', 'ver=1.4.4'],
      address,
    ),
    ...instance(
      '_http._tcp',
      'shellypro3em-c8f09e8e1234',
      'shellypro3em-c8f09e8e1234',
      8080,
      ['gen=2', 'app=Pro3EM', 'ver=1.4.4'],
      address,
    ),
    ...instance('_http._tcp', 'shellyplug-s-a1b2c3', 'shellyplug-s-a1b2c3', 80, ['id=a1b2c3'], address),
    ...instance('_http._tcp', 'printer', 'printer', 80, ['path=/'], address),
  ];
  const mdns = makeMdns({ interface: address, bind: '0.0.0.0', reuseAddr: true, loopback: false });
  const raw = createSocket('udp4');
  // 500 PTR records: over the browse's bound, dropped whole (the Gen2 host below must not be listed).
  const oversized: Answer[] = Array.from({ length: 500 }, (_, index) => ({
    name: '_shelly._tcp.local',
    type: 'PTR' as const,
    ttl: 120,
    data: `shellypro3em-${String(index).padStart(12, '0')}._shelly._tcp.local`,
  }));
  mdns.on('query', (query) => {
    const asked = (query.questions ?? []).map((q) => q.name.toLowerCase());
    if (!asked.includes('_hwenergy._tcp.local')) return;
    if (own) {
      for (const datagram of hostileDatagrams()) raw.send(datagram, 5353, '224.0.0.251');
      mdns.respond({ answers: oversized });
    }
    mdns.respond({
      answers: records.filter((r) => r.type === 'PTR'),
      additionals: records.filter((r) => r.type !== 'PTR'),
    });
  });
  raw.bind(() => {
    raw.setMulticastInterface(address);
    raw.setMulticastLoopback(false);
  });
  mdns.on('ready', () => process.stdout.write('ready\n'));
  for await (const line of createInterface({ input: process.stdin })) if (line === 'quit') break;
  mdns.destroy();
  raw.close();
  process.exit(0);
} else if (mode === 'browse') {
  const refusals = new Refusals();
  const devices = await browseDongles(
    { clock: systemClock, logger: silentLogger(), refusals },
    {
      systemId: arg ?? 'A1B2C3D4E5F6',
      durationMs: Number(process.argv[4] ?? '3000'),
      ...(process.argv[5] ? { maxDevices: Number(process.argv[5]) } : {}),
    },
  );
  process.stdout.write(`${JSON.stringify({ devices, refusals: Object.fromEntries(refusals.entries()) })}\n`);
  process.exit(0);
}
