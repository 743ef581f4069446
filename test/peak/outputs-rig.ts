// A gateway with the peak guard and its outputs on real peers: the HTTP API (settings, peak), the
// guard calling its stage's actions on a loopback server that records them, the MQTT output on a
// real mosquitto, on a frozen clock that only `feed` moves (1 reading per second).
import type { TestContext } from 'node:test';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { componentLogger } from '../../src/log.js';
import { PeakCommandCounts } from '../../src/mqtt/peak-commands.js';
import { peakFeedOf } from '../../src/mqtt/peak-publisher.js';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { recordingServer } from '../actions/rig.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { startMosquitto, type MosquittoBroker } from '../mqtt/mosquitto-broker.js';
import { publisherEnv, waitForStatus } from '../mqtt/mqtt-context.js';
import { TestSubscriber } from '../mqtt/test-subscriber.js';
import { importFeeder } from './import-feed.js';
import { EV } from './simulate.js';

export interface PeakRig {
  h: HttpTestContext;
  broker: MosquittoBroker;
  subscriber: TestSubscriber;
  guard: PeakGuard;
  counts: PeakCommandCounts;
  /** Paths the stage actions called (`/ev/off`, `/ev/on`). */
  calls(): string[];
  /** `seconds` readings at `kw` import, one per second of the frozen clock. */
  feed(kw: number, seconds: number): void;
  /** Moves the clock to `before` ms ahead of the next quarter hour. */
  toQuarter(before: number): void;
}

/** `beforeGateway`: runs once the broker is up, before the gateway connects (retained messages). */
export async function startPeakRig(
  t: TestContext,
  beforeGateway?: (broker: MosquittoBroker) => Promise<void>,
): Promise<PeakRig | undefined> {
  if (!requireCommand(t, 'mosquitto')) return undefined;
  const broker = await startMosquitto();
  const target = await recordingServer(200);
  // Torn down newest first, whatever point the start reached.
  const cleanups: (() => Promise<void>)[] = [() => broker.stop(), () => target.close()];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  if (beforeGateway) await beforeGateway(broker);
  const request = (path: string) => [{ http: { url: `${target.url}${path}`, method: 'POST' } }];
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  let mqtt: ReturnType<typeof createMqttService> | undefined;
  const counts = new PeakCommandCounts();
  const h = await startHttpContext({
    clockFrozen: true,
    staleAfterMs: 3_600_000,
    env: {
      ...publisherEnv(broker.url),
      METER_GATEWAY_METER_TIMEOUT: '3600',
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          { id: 'ev_off', requests: request('/ev/off') },
          { id: 'ev_on', requests: request('/ev/on') },
        ],
      }),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([EV]),
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard);
      mqtt = createMqttService(ctx, undefined, { feed: peakFeedOf(ctx, guard), counts });
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!), runOutput(h.ctx, mqtt!)];
  const subscriber = await TestSubscriber.connect(broker.url, ['homeassistant/#', 'meter-gateway/#']);
  cleanups.push(
    () => h.close(),
    () => subscriber.close(),
  );
  for (const output of outputs) cleanups.push(() => output.stop());
  for (const output of outputs) await output.start();
  await waitForStatus(h.ctx, 'connected', (status) => status.link === 'connected');
  const feed = importFeeder(h, 500);
  return {
    h,
    broker,
    subscriber,
    guard: guard!,
    counts,
    calls: () => target.requests.map((recorded) => recorded.url),
    feed,
    toQuarter(before) {
      const now = h.clock.now();
      h.clock.advance(900_000 - (now % 900_000) - before);
    },
  };
}
