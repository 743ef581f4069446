import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAsync, type MqttClient } from 'mqtt';
import { ConfigStore } from '../src/config/config-store.js';
import { createAppContext, type AppContext } from '../src/context.js';
import { createLogger } from '../src/log.js';
import { createMeterInput } from '../src/meter/meter-input.js';
import { decodeCapture } from '../src/meter/protocols.js';
import { createMqttService } from '../src/mqtt/publisher.js';
import { runOutput } from '../src/output-runner.js';
import type { Reading } from '../src/reading/reading.js';
import type { Service } from '../src/service.js';
import { benchTelegram, sequenceOf } from './mqtt-telegram.js';
import { registerConfigFormats } from '../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

export const BENCH_SYSTEM_ID = 'BE0C4000C0DE';
const STATE_TOPIC = `meter-gateway/${BENCH_SYSTEM_ID}/state`;
const REPORT_TOPIC = `meter-gateway/${BENCH_SYSTEM_ID}/report`;
const TEMPLATE =
  '{"P_In": ${1_7_0}, "P_Out": ${2_7_0}, "E_In": ${1_8_0}, "E_Out": ${2_8_0}, "Sys": {"Id": "${sys.id}"}}';

/** Which message a sample waits for: the HA state (every reading) or the template report. */
export type Channel = 'state' | 'report';

export interface Samples {
  /** Microseconds, one per measured message. */
  latencies: Float64Array;
  /** Payload bytes of the last message. */
  size: number;
}

/**
 * The gateway as the daemon runs it, in this process: a fake meter (TCP server the meter input
 * connects to with tcp://...?protocol=dsmr), meter input -> DSMR decoder -> reading store -> MQTT
 * service, and a subscriber (mqtt.js, TCP_NODELAY) on the broker. One clock for all timestamps.
 */
export class GatewayRig {
  private meterSocket: Socket | undefined;
  private waiting: { channel: Channel; seq: number; resolve: (at: number) => void } | undefined;
  private lastSize = 0;

  private constructor(
    readonly ctx: AppContext,
    private readonly services: Service[],
    private readonly meterServer: Server,
    private readonly subscriber: MqttClient,
    private readonly stateDir: string,
  ) {
    subscriber.on('message', (topic, payload) => {
      const at = performance.now();
      const waiting = this.waiting;
      if (!waiting) return;
      if (topic !== (waiting.channel === 'state' ? STATE_TOPIC : REPORT_TOPIC)) return;
      const parsed = JSON.parse(payload.toString()) as { power_active_positive?: number; P_In?: number };
      const power = waiting.channel === 'state' ? parsed.power_active_positive : parsed.P_In;
      if (power === undefined || sequenceOf(power) !== waiting.seq % 100_000) return;
      this.lastSize = payload.length;
      this.waiting = undefined;
      waiting.resolve(at);
    });
  }

  static async start(brokerUrl: string): Promise<GatewayRig> {
    const meterServer = createServer();
    meterServer.listen(0, '127.0.0.1');
    await once(meterServer, 'listening');
    const meterPort = (meterServer.address() as { port: number }).port;
    const connected = once(meterServer, 'connection') as Promise<[Socket]>;
    const stateDir = mkdtempSync(join(tmpdir(), 'meter-gateway-bench-'));
    const config = ConfigStore.load({
      stateDir,
      env: {
        METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${meterPort}?protocol=dsmr`,
        METER_GATEWAY_MQTT_ENABLE: 'true',
        METER_GATEWAY_MQTT_URL: brokerUrl,
        METER_GATEWAY_MQTT_PUBLISH_TEMPLATE: TEMPLATE,
        METER_GATEWAY_SERVICES_REPORT_INTERVAL: '3600',
        // Telegram-to-state latency: a state message per telegram.
        METER_GATEWAY_MQTT_DISCOVERY_STATE_INTERVAL: '0',
        METER_GATEWAY_LOG_LEVEL: 'warn',
      },
    });
    const logger = createLogger('warn');
    const ctx = createAppContext({
      config,
      logger,
      staleAfterMs: 60_000,
      meterInterface: 'TCP',
      system: { id: BENCH_SYSTEM_ID, model: 'bench', firmware: '0', bootId: 'bench' },
    });
    const services: Service[] = [
      runOutput(ctx, createMeterInput(ctx, logger)),
      runOutput(ctx, createMqttService(ctx)),
    ];
    for (const service of services) await service.start();
    const subscriber = await connectAsync(brokerUrl, {
      reconnectPeriod: 0,
      clientId: `bench-sub-${process.pid}`,
    });
    (subscriber.stream as Socket).setNoDelay(true);
    await subscriber.subscribeAsync([STATE_TOPIC, REPORT_TOPIC], { qos: 0 });
    const rig = new GatewayRig(ctx, services, meterServer, subscriber, stateDir);
    [rig.meterSocket] = await connected;
    rig.meterSocket.setNoDelay(true);
    for (let i = 0; i < 200 && ctx.services.get('mqtt')?.link !== 'connected'; i++)
      await new Promise((r) => setTimeout(r, 10));
    return rig;
  }

  /** Telegram written into the meter input -> message at the subscriber, one at a time. */
  async telegrams(count: number, warmup: number, channel: Channel, spacingMs = 0): Promise<Samples> {
    return this.run(count, warmup, channel, spacingMs, (seq) => this.meterSocket!.write(benchTelegram(seq)));
  }

  /**
   * store.ingest() of an already decoded reading -> message at the subscriber. receivedAt advances
   * by one report_interval per reading, so with report_interval 1 every reading is due for the
   * template too (the template and the state message then go out for every reading).
   */
  async ingests(count: number, warmup: number, channel: Channel): Promise<Samples> {
    const results = decodeCapture(Buffer.concat([benchTelegram(0)]), 'dsmr');
    const first = results[0];
    if (!first?.ok) throw new Error('bench telegram does not decode');
    const base: Reading = first.reading;
    let clock = Date.now();
    return this.run(count, warmup, channel, 0, (seq) => {
      clock += 1000;
      const values = new Map(base.values);
      values.set('1.7.0', { value: (seq % 100_000) / 1000, unit: 'kW' });
      this.ctx.store.ingest({ ...base, receivedAt: clock, values });
    });
  }

  setReportInterval(seconds: number): void {
    const result = this.ctx.config.apply(new Map([['services.report_interval', seconds]]));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
  }

  private async run(
    count: number,
    warmup: number,
    channel: Channel,
    spacingMs: number,
    send: (seq: number) => void,
  ): Promise<Samples> {
    const latencies = new Float64Array(count);
    for (let i = 0; i < warmup + count; i++) {
      const seq = this.nextSeq++;
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${channel} message for telegram ${seq}`)), 5000);
        this.waiting = { channel, seq, resolve: (at) => (clearTimeout(timer), resolve(at)) };
      });
      const sentAt = performance.now();
      send(seq);
      const at = await arrived;
      if (i >= warmup) latencies[i - warmup] = (at - sentAt) * 1000;
      if (spacingMs > 0)
        await new Promise((resolve) => setTimeout(resolve, spacingMs - (performance.now() - sentAt)));
    }
    return { latencies, size: this.lastSize };
  }

  private nextSeq = 1;

  async stop(): Promise<void> {
    await this.subscriber.endAsync();
    for (const service of [...this.services].reverse()) await service.stop();
    this.meterSocket?.destroy();
    this.meterServer.close();
    this.ctx.store.close();
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}
