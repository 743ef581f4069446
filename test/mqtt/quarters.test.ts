import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { BrokerLink } from '../../src/mqtt/broker-link.js';
import { QuarterMqtt } from '../../src/mqtt/quarters-publisher.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { setClock } from '../history/history-fixture.js';
import {
  QUARTER_MS,
  quarterEnd,
  quarterHoursAgo,
  sourceOf,
  startMeter,
  stopMeter,
} from '../push/push-fixture.js';
import { startMosquitto } from './mosquitto-broker.js';
import { TestSubscriber } from './test-subscriber.js';
import { connect } from 'mqtt';
import { waitFor } from '../helpers/wait.js';

test('MQTT fleet path: after a broker outage the birth record comes first, then every quarter record; a persistent session gets what was sent while it was away', async (t) => {
  if (!requireCommand(t, 'mosquitto')) return;
  const broker = await startMosquitto();
  await broker.kill();
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  const pv = await startMeter(h, 'pv', 'pv');
  const link = new BrokerLink(
    {
      address: { secure: false, host: '127.0.0.1', port: broker.port },
      clientId: 'gateway-quarters',
      keepaliveSeconds: 30,
    },
    { clock: h.ctx.clock },
  );
  assert.ok(
    h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.push.mqtt.enable', true],
        ['services.push.mqtt.site', 'block-b'],
      ]),
    ).ok,
  );
  const quarters = new QuarterMqtt(h.ctx, sourceOf([main, pv]));
  const base = `meter-gateway/${h.ctx.system.id}`;
  let subscriber: TestSubscriber | undefined;
  try {
    // The broker is down while 8 quarter hours (2 hours) pass, two meters.
    const first = quarterHoursAgo(4);
    link.connectNow();
    for (let i = 1; i <= 8; i++)
      await quarterEnd(
        h,
        [
          { meter: main, eIn: 10 + i, eOut: 1 },
          { meter: pv, eOut: 50 + i / 2 },
        ],
        first + i * QUARTER_MS,
      );
    setClock(h, Date.now());
    assert.equal(link.connected, false);
    await broker.start();
    const session = { clientId: 'fleet-collector', clean: false };
    subscriber = await TestSubscriber.connect(broker.url, [`${base}/#`], session);
    const connected = once(link, 'connect');
    link.connectNow();
    await connected;
    await quarters.connected(link);
    await subscriber.sync();
    const topics = subscriber.messages.map((m) => m.topic);
    assert.equal(topics[0], `${base}/birth`, 'birth first');
    const birth = JSON.parse(subscriber.messages[0]!.payload) as {
      site: string;
      time_zone: string;
      meters: unknown[];
    };
    assert.equal(birth.site, 'block-b');
    assert.ok(birth.time_zone);
    const records = subscriber.messages.filter((m) => m.topic.includes('/quarters/'));
    assert.equal(records.length, 16);
    assert.ok(records.every((m) => m.qos === 1));
    const seqs = records
      .filter((m) => m.topic.endsWith('/main'))
      .map((m) => (JSON.parse(m.payload) as { seq: number }).seq);
    assert.deepEqual(
      seqs,
      [...Array(8).keys()].map((i) => (first + i * QUARTER_MS) / 1000 / 900 + 1 - 1),
    );
    const lastMain = JSON.parse(records.filter((m) => m.topic.endsWith('/main')).at(-1)!.payload) as {
      import_kwh: number;
    };
    assert.equal(lastMain.import_kwh, 18);
    // The collector goes away (its session stays); two more quarters are sent meanwhile.
    await subscriber.close();
    subscriber = undefined;
    for (let i = 9; i <= 10; i++)
      await quarterEnd(
        h,
        [
          { meter: main, eIn: 10 + i, eOut: 1 },
          { meter: pv, eOut: 50 + i / 2 },
        ],
        first + i * QUARTER_MS,
      );
    setClock(h, Date.now());
    await quarters.connected(link);
    assert.deepEqual(quarters.status(), {
      cursor: (first + 9 * QUARTER_MS) / 1000,
      published: 20,
      last_error: null,
    });
    // The collector's client listens before it connects: the broker delivers the session's messages right after CONNACK.
    const missed: Array<{ topic: string; payload: string }> = [];
    const collector = connect(broker.url, { ...session, reconnectPeriod: 0 });
    collector.on('message', (topic, payload) => {
      if (topic.includes('/quarters/')) missed.push({ topic, payload: payload.toString() });
    });
    try {
      await new Promise<void>((resolve) => collector.once('connect', () => resolve()));
      await waitFor(
        'the quarters sent while the collector was away',
        () => missed.length,
        (n) => n >= 4,
      );
    } finally {
      await collector.endAsync(true);
    }
    assert.deepEqual(
      missed.map((m) => (JSON.parse(m.payload) as { seq: number }).seq).sort(),
      [9, 9, 10, 10].map((i) => (first + (i - 1) * QUARTER_MS) / 900_000).sort(),
    );
    assert.equal(quarters.status().published, 20);
  } finally {
    quarters.detach();
    await subscriber?.close();
    await link.close();
    await stopMeter(main);
    await stopMeter(pv);
    await h.close();
    await broker.stop();
  }
});
