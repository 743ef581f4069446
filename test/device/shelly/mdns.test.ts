import { test } from 'node:test';
import assert from 'node:assert/strict';
import makeMdns from 'multicast-dns';
import { MdnsAnnouncer } from '../../../src/device/mdns.js';
import { runOutput } from '../../../src/output-runner.js';
import { startHttpContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';

type Seen = Array<{ name: string; type: string; data: unknown }>;

test('mDNS: the personality is announced as host shellypro3em-<id> with _shelly._tcp and _http._tcp, TXT gen=2', async () => {
  const server = await startHttpContext({ env: { METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true' } });
  // Both sockets on the host's default multicast interface; multicast loops back to this host.
  const options = { loopback: true, reuseAddr: true };
  const announcer = new MdnsAnnouncer(server.ctx, server.ctx.logger, options);
  const running = runOutput(server.ctx, announcer);
  const querier = makeMdns(options);
  const seen: Seen = [];
  querier.on('response', (response) =>
    seen.push(...(response.answers as Seen), ...(response.additionals as Seen)),
  );
  try {
    await running.start();
    const instance = 'shellypro3em-a1b2c3d4e5f6._shelly._tcp.local';
    await waitFor(
      'the _shelly._tcp instance and its TXT',
      () => {
        querier.query({ questions: [{ name: '_shelly._tcp.local', type: 'PTR' }] });
        return seen;
      },
      (records) => records.some((r) => r.name === instance && r.type === 'TXT'),
      { intervalMs: 200 },
    );
    const txt = seen.find((r) => r.name === instance && r.type === 'TXT')!.data as Buffer[];
    assert.deepEqual(txt.map(String), ['gen=2', 'app=Pro3EM', 'ver=1.4.4']);
    const srv = seen.find((r) => r.name === instance && r.type === 'SRV')!.data as {
      port: number;
      target: string;
    };
    assert.deepEqual(srv, {
      port: server.port,
      target: 'shellypro3em-a1b2c3d4e5f6.local',
      priority: 0,
      weight: 0,
    });
    assert.ok(seen.some((r) => r.name === 'shellypro3em-a1b2c3d4e5f6._http._tcp.local' && r.type === 'TXT'));
    assert.ok(seen.some((r) => r.type === 'PTR' && r.data === instance));
  } finally {
    querier.destroy();
    await running.stop();
    await server.close();
  }
});
