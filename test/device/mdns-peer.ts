// Child process of mdns.test.ts, run inside a network namespace.
//   announce: runs the MdnsAnnouncer with HTTP and Modbus "running"; on stdin "modbus-off" stops Modbus,
//             "rescan" runs its interval timers now (the interface re-scan) instead of waiting.
//   browse:   queries _http._tcp.local and _modbus._tcp.local for a few seconds, prints what it saw as JSON;
//             with a third argument "passive" it only listens (the announcements, no answers).
import { createInterface } from 'node:readline';
import makeMdns from 'multicast-dns';
import { createAppContext } from '../../src/context.js';
import { MdnsAnnouncer } from '../../src/device/mdns.js';
import { silentLogger } from '../helpers/log-lines.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();
import { runOutput } from '../../src/output-runner.js';
import { systemClock } from '../../src/clock.js';

const [mode, stateDir, passive] = process.argv.slice(2);

if (mode === 'announce') {
  const intervals: Array<() => void> = [];
  const context = createAppContext({
    env: { METER_GATEWAY_SYSTEM_HOST_NAME: 'gw-test' },
    stateDir: stateDir!,
    staleAfterMs: 10_000,
    logger: silentLogger(),
    system: { id: 'A1B2C3D4E5F6', model: 'meter-gateway', firmware: '0.1.0', bootId: 'x' },
    clock: {
      ...systemClock,
      setInterval: (callback, intervalMs) => {
        intervals.push(callback);
        return systemClock.setInterval(callback, intervalMs);
      },
    },
  });
  const services = context.services;
  const announcer = new MdnsAnnouncer(context, context.logger);
  const announcerOutput = runOutput(context, announcer);
  services.set('http', { state: 'running', host: '0.0.0.0', port: 8080 });
  services.set('modbus', { state: 'running', port: 1502 });
  await announcerOutput.start();
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'modbus-off') {
      services.set('modbus', { state: 'disabled' });
      process.stdout.write('modbus-off\n');
    }
    if (line === 'rescan') {
      for (const callback of intervals) callback();
      process.stdout.write('rescanned\n');
    }
    if (line === 'quit') break;
  }
  await announcerOutput.stop();
  context.store.close();
  // stdin (the parent's pipe) would keep the process alive.
  process.exit(0);
} else {
  const mdns = makeMdns();
  const seen: Array<{ name: string; type: string; ttl?: number; data: unknown }> = [];
  mdns.on('response', (response) => {
    for (const record of [...response.answers, ...(response.additionals ?? [])]) {
      const raw: unknown = 'data' in record ? record.data : undefined;
      const data = Buffer.isBuffer(raw)
        ? raw.toString()
        : Array.isArray(raw)
          ? raw.map((d: unknown) => String(d))
          : raw;
      seen.push({
        name: record.name,
        type: record.type,
        ttl: 'ttl' in record ? record.ttl : undefined,
        data,
      });
    }
  });
  mdns.on('ready', () => process.stdout.write('listening\n'));
  const ask = () =>
    mdns.query({
      questions: [
        { name: '_http._tcp.local', type: 'PTR' },
        { name: '_modbus._tcp.local', type: 'PTR' },
      ],
    });
  const timer = passive === 'passive' ? undefined : setInterval(ask, 500);
  if (timer) ask();
  setTimeout(
    () => {
      clearInterval(timer);
      mdns.destroy();
      process.stdout.write(`${JSON.stringify(seen)}\n`);
    },
    Number(stateDir ?? '2000'),
  );
}
