import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import makeMdns from 'multicast-dns';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { MdnsAnnouncer } from '../../src/device/mdns.js';
import { runOutput } from '../../src/output-runner.js';
import { silentLogger } from '../helpers/log-lines.js';
import { requirePeer } from '../helpers/environment.js';

registerConfigFormats();

type Seen = { name: string; type: string; data: unknown };

/** Asks `_hwenergy._tcp.local` PTR over multicast until the instance's SRV and TXT came back. */
async function query(): Promise<Seen[] | undefined> {
  const mdns = makeMdns({ loopback: true });
  const seen: Seen[] = [];
  try {
    return await new Promise<Seen[] | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 4000);
      mdns.on('response', (response) => {
        for (const record of [...response.answers, ...(response.additionals ?? [])]) {
          const raw: unknown = 'data' in record ? record.data : undefined;
          const data = Array.isArray(raw) ? raw.map((d: unknown) => String(d)) : raw;
          seen.push({ name: record.name, type: record.type, data });
        }
        if (seen.some((r) => r.type === 'TXT' && r.name.includes('_hwenergy'))) {
          clearTimeout(timer);
          resolve(seen);
        }
      });
      mdns.on('error', () => resolve(undefined));
      const ask = () => mdns.query({ questions: [{ name: '_hwenergy._tcp.local', type: 'PTR' }] });
      ask();
      setTimeout(ask, 500);
    });
  } finally {
    await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
  }
}

test('mDNS announces _hwenergy._tcp with the documented TXT records while the personality is on', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-hw-mdns-'));
  const context = createAppContext({
    env: {
      METER_GATEWAY_SYSTEM_HOST_NAME: 'gw-hw',
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
    },
    stateDir,
    staleAfterMs: 10_000,
    logger: silentLogger(),
    system: { id: 'A1B2C3D4E5F6', model: 'meter-gateway', firmware: '0.1.0', bootId: 'x' },
  });
  const output = runOutput(context, new MdnsAnnouncer(context, context.logger));
  context.services.set('http', { state: 'running', host: '0.0.0.0', port: 8080 });
  await output.start();
  t.after(async () => {
    await output.stop();
    context.store.close();
  });
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const seen = await query();
  if (!requirePeer(t, seen !== undefined, 'multicast on this host (no mDNS answer came back)')) return;
  const find = (name: string, type: string) => seen!.find((r) => r.name === name && r.type === type);
  const instance = 'p1meter-d4e5f6._hwenergy._tcp.local';
  assert.equal(find('_hwenergy._tcp.local', 'PTR')?.data, instance);
  assert.deepEqual(find(instance, 'SRV')?.data, {
    priority: 0,
    weight: 0,
    port: 8080,
    target: 'gw-hw.local',
  });
  assert.deepEqual(find(instance, 'TXT')?.data, [
    'api_enabled=1',
    'path=/api/v1',
    'serial=a1b2c3d4e5f6',
    'product_name=P1 Meter',
    'product_type=HWE-P1',
  ]);
  assert.ok((context.services.get('mdns')?.services as string[] | undefined)?.includes('_hwenergy._tcp'));

  // Off: the service says goodbye and is no longer announced.
  assert.equal(context.config.apply(new Map([['services.emulate.homewizard.enable', false]])).ok, true);
  assert.ok(!(context.services.get('mdns')?.services as string[] | undefined)?.includes('_hwenergy._tcp'));
});
