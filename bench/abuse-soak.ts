// Mixed abuse soak (`npm run bench:abuse`, docs/architecture.md#hostile-input): the daemon process
// with every listener on, under UDP and WebSocket floods, SSE clients that never read, PUT storms
// of `meters` and MQTT command floods, all at once for SOAK_MINUTES (10 unless set). Afterwards
// the daemon must be up, its RSS within 30 MB of the idle RSS measured before the load, and every
// stored setting as it was. Loopback only. Prints the figures as JSON.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectAsync } from 'mqtt';
import { WebSocket } from 'ws';
import { freePort, rssKb, startDaemon, startMosquitto } from './rss-daemon.js';

const minutes = Number(process.env.SOAK_MINUTES ?? '10');
const SYSTEM_SETTLE_MS = 15_000;

interface Figures {
  attempts: Record<string, number>;
  refused: Record<string, number>;
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body };
}

async function main(): Promise<void> {
  const broker = await startMosquitto();
  if (!broker) throw new Error('mosquitto is not installed: the MQTT flood needs a broker');
  const [modbusPort, proxyPort, udpPort] = [await freePort(), await freePort(), await freePort()];
  const daemon = await startDaemon({
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(modbusPort),
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
    METER_GATEWAY_SERVICES_METER_PROXY: 'true',
    METER_GATEWAY_METER_PROXY_PORT: String(proxyPort),
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
    // Only the free port above: the default further port 2220 may be another daemon's.
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: '',
    METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
    METER_GATEWAY_MQTT_ENABLE: 'true',
    METER_GATEWAY_MQTT_URL: broker.url,
    METER_GATEWAY_SERVICES_BROADCAST: 'false',
  });
  const base = `http://127.0.0.1:${daemon.httpPort}`;
  let crashed = false;
  daemon.child.once('exit', () => (crashed = true));
  try {
    for (let i = 0; i < 100; i++) {
      if (
        (await fetch(`${base}/api/v1/system`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
      await sleep(200);
    }
    // The settings every write below leaves in place, then idle.
    const put = (body: unknown) =>
      json(`${base}/api/v1/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await put({ system: { host_name: 'soak-gw' } });
    await sleep(SYSTEM_SETTLE_MS);
    const before = (await json(`${base}/api/v1/settings`)).body as Record<string, unknown>;
    const idleKb = rssKb(daemon.child.pid!);

    const figures: Figures = { attempts: {}, refused: {} };
    const count = (what: string, n = 1) => (figures.attempts[what] = (figures.attempts[what] ?? 0) + n);
    const stopAt = Date.now() + minutes * 60_000;
    const running = () => Date.now() < stopAt && !crashed;
    let peakKb = idleKb;
    const sampler = setInterval(() => {
      if (!crashed) peakKb = Math.max(peakKb, rssKb(daemon.child.pid!));
    }, 500);

    // UDP flood: JSON-RPC and garbage datagrams, as fast as the loop allows in bursts.
    const udp = createSocket('udp4');
    udp.on('message', () => undefined);
    const udpFlood = (async () => {
      while (running()) {
        for (let i = 0; i < 200; i++) {
          const garbage = i % 3 === 0;
          udp.send(
            garbage ? Buffer.alloc(1 + (i % 5000), i) : '{"id":1,"method":"EM.GetStatus","params":{"id":0}}',
            udpPort,
            '127.0.0.1',
          );
        }
        count('udp_datagrams', 200);
        await sleep(20);
      }
    })();

    // WebSocket flood: connections that send frames and ones that stay idle, beyond every cap.
    const wsFlood = (async () => {
      const idle: WebSocket[] = [];
      while (running()) {
        const client = new WebSocket(`ws://127.0.0.1:${daemon.httpPort}/rpc`);
        count('ws_connections');
        client.on('error', () => undefined);
        client.on('open', () => {
          for (let i = 0; i < 50; i++) client.send('{"id":2,"method":"Shelly.GetStatus"}');
          count('ws_frames', 50);
          if (idle.length < 40) idle.push(client);
          else client.terminate();
        });
        await sleep(50);
      }
      for (const client of idle) client.terminate();
    })();

    // SSE clients that never read: 16 on the peak stream and 16 on the live stream, renewed.
    const sseNonReaders = (async () => {
      const sockets: ReturnType<typeof connect>[] = [];
      while (running()) {
        for (const path of ['/api/v1/peak/stream', '/api/v1/live']) {
          for (let i = 0; i < 16; i++) {
            const socket = connect(daemon.httpPort, '127.0.0.1');
            socket.on('error', () => undefined);
            socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
            socket.pause();
            sockets.push(socket);
            count('sse_non_readers');
          }
        }
        await sleep(60_000);
        for (const socket of sockets.splice(0)) socket.destroy();
      }
      for (const socket of sockets) socket.destroy();
    })();

    // PUT storm of meters: lists that change every time.
    const putStorm = (async () => {
      let n = 0;
      while (running()) {
        const answer = await put({
          meters: [{ id: 'pv', name: `PV ${++n}`, role: 'pv', source: 'simulator' }],
        }).catch(() => ({ status: 0 }));
        count(`meters_put_${answer.status}`);
        await sleep(20);
      }
    })();

    // MQTT command flood: settings commands and oversized payloads.
    const mqttClient = await connectAsync(broker.url);
    const commandBase = `meter-gateway`;
    const system = (await json(`${base}/api/v1/system`)).body as { device?: { id?: string } };
    const id = system.device?.id ?? '';
    const mqttFlood = (async () => {
      let n = 0;
      while (running()) {
        for (let i = 0; i < 100; i++)
          void mqttClient.publish(`${commandBase}/${id}/peak/limit/set`, String(5 + (++n % 10) / 10));
        void mqttClient.publish(`${commandBase}/${id}/peak/mode/set`, 'x'.repeat(1024 * 1024));
        count('mqtt_commands', 100);
        count('mqtt_oversized');
        await sleep(100);
      }
    })();

    await Promise.all([udpFlood, wsFlood, sseNonReaders, putStorm, mqttFlood]);
    clearInterval(sampler);
    udp.close();
    await mqttClient.endAsync();

    // Let the daemon drop what the load left behind, then measure and compare.
    await sleep(SYSTEM_SETTLE_MS);
    const afterKb = crashed ? NaN : rssKb(daemon.child.pid!);
    const metrics = crashed ? '' : await fetch(`${base}/metrics`).then((r) => r.text());
    for (const match of metrics.matchAll(/^meter_gateway_refused_total\{reason="([^"]+)"\} (\d+)/gm))
      figures.refused[match[1]!] = Number(match[2]);
    const after = crashed
      ? undefined
      : ((await json(`${base}/api/v1/settings`)).body as Record<string, unknown>);
    // The meters and the peak guard's limit were the storms' own targets (admitted writes change
    // them); everything else must be as before.
    const without = (settings: Record<string, unknown> | undefined) => {
      if (!settings) return undefined;
      const { meters: _meters, ...rest } = structuredClone(settings);
      const services = rest.services as { peak_guard?: Record<string, unknown> } | undefined;
      delete services?.peak_guard?.limit_kw;
      return JSON.stringify(rest);
    };
    const settingsIntact = without(before) === without(after);
    const result = {
      minutes,
      crashed,
      idle_rss_mb: Math.round(idleKb / 102.4) / 10,
      peak_rss_mb: Math.round(peakKb / 102.4) / 10,
      after_rss_mb: Math.round(afterKb / 102.4) / 10,
      rss_within_30_mb: afterKb - idleKb <= 30 * 1024,
      settings_intact: settingsIntact,
      ...figures,
    };
    console.log(JSON.stringify(result, null, 2));
    if (crashed || !result.rss_within_30_mb || !settingsIntact) process.exitCode = 1;
  } finally {
    if (!crashed) await daemon.stop();
    broker.stop();
  }
}

await main();
