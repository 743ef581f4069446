import type { CommandGate } from './command-gate.js';
import { systemClock, type Clock, type Timer } from '../clock.js';
import { EventEmitter } from 'node:events';
import type { MqttClient } from 'mqtt';
import { Backoff } from '../backoff.js';
import { clientOptionsOf, loadMqttClient, openSocket } from './broker-client.js';
import type { LinkOptions } from './connection-options.js';
import { OFFLINE_QUEUE_LIMITS, OfflineQueue, type QueuedMessage, type QueueLimits } from './offline-queue.js';
import { topicMatches } from './topic-name.js';

export type LinkState = 'idle' | 'connecting' | 'connected' | 'waiting';

export interface LinkStatus {
  state: LinkState;
  /** Last connection or publish error, cleared by a successful connect. */
  error?: string;
  /** Failed attempts since the last successful connect. */
  attempts: number;
  /** Delay of the pending retry (state 'waiting'). */
  retryInMs?: number;
  connects: number;
  published: number;
  failed: number;
  queued: number;
  dropped: number;
}

export interface LinkEvents {
  connect: [];
  disconnect: [];
  message: [topic: string, payload: Buffer, retained: boolean];
  /** State or error changed, or a message was queued or failed (successful sends only count). */
  status: [];
}

/** What to do with a message published while not connected. */
export type OfflinePolicy = 'queue' | 'drop';

/**
 * Reconnect delays: 1 s doubling to 60 s, each drawn from [delay/2, delay] ("equal jitter"), reset
 * after a successful connect. mqtt.js itself retries at a fixed period without jitter, which
 * hammers a broker that is down and makes a fleet of gateways reconnect in lock step after a broker
 * restart, so its reconnectPeriod is 0 and this schedule is used instead.
 */
export function reconnectBackoff(random: () => number = Math.random): Backoff {
  return new Backoff(1000, 60_000, 0.5, random);
}

const END_TIMEOUT_MS = 2_000;
/** mqtt.js fails pending callbacks with this when the connection goes; those get requeued. */
const CONNECTION_CLOSED = 'Connection closed';

/**
 * One MQTT broker connection over mqtt.js, with the parts mqtt.js lacks for a daemon: TCP_NODELAY on
 * the socket (neither mqtt.js nor mosquitto sets it; small messages otherwise wait for delayed ACKs),
 * TLS with skip_cn_check meaning "skip the host name check only", capped exponential backoff with
 * jitter instead of mqtt.js's fixed reconnect period, and a bounded offline queue instead of its
 * unbounded one. Every attempt uses a fresh MqttClient (reconnectPeriod 0), so nothing of a dead
 * connection survives except the messages this class requeues itself.
 */
export class BrokerLink extends EventEmitter<LinkEvents> {
  private client: MqttClient | undefined;
  /** Counts connection attempts, so a library load that resolves late knows it was superseded. */
  private attempt = 0;
  private state: LinkState = 'idle';
  private lastError: string | undefined;
  private retryTimer: Timer | undefined;
  private retryInMs: number | undefined;
  private readonly backoff: Backoff;
  private readonly clock: Clock;
  private readonly queue: OfflineQueue;
  private readonly inFlight = new Set<QueuedMessage>();
  private readonly subscriptions = new Set<string>();
  private counters = { connects: 0, published: 0, failed: 0 };
  /** Size and rate bounds of incoming messages (commands); none: every message goes on. */
  private readonly gate: CommandGate | undefined;
  private readonly stateFilters = new Set<string>();

  constructor(
    private options: LinkOptions,
    limits: { backoff?: Backoff; queue?: QueueLimits; clock?: Clock; gate?: CommandGate } = {},
  ) {
    super();
    this.gate = limits.gate;
    this.clock = limits.clock ?? systemClock;
    this.backoff = limits.backoff ?? reconnectBackoff();
    this.queue = new OfflineQueue(limits.queue ?? OFFLINE_QUEUE_LIMITS);
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  status(): LinkStatus {
    const status: LinkStatus = {
      state: this.state,
      attempts: this.backoff.attempts,
      ...this.counters,
      queued: this.queue.length,
      dropped: this.queue.dropped,
    };
    if (this.lastError !== undefined) status.error = this.lastError;
    if (this.state === 'waiting' && this.retryInMs !== undefined) status.retryInMs = this.retryInMs;
    return status;
  }

  /** Connects now: first start, new settings, or "try again at once" (backoff restarts). */
  connectNow(options: LinkOptions = this.options): void {
    this.options = options;
    this.backoff.reset();
    this.openClient();
  }

  /** Publishes when connected; otherwise queues (bounded) or drops. Returns whether it was sent. */
  publish(message: QueuedMessage, whenOffline: OfflinePolicy): boolean {
    const client = this.client;
    if (this.state !== 'connected' || !client) {
      if (whenOffline === 'queue') {
        this.queue.push(message);
        this.emit('status');
      }
      return false;
    }
    this.send(client, message, whenOffline === 'queue');
    return true;
  }

  /**
   * Publishes and resolves once the broker confirmed the message (QoS 1: its PUBACK, MQTT 3.1.1
   * §4.3.2); rejects when the link is down, the connection is lost first, or no confirmation came
   * within `timeoutMs`. Never queued: its caller keeps its own cursor and sends again after a
   * reconnect (the quarter spool, docs/architecture.md#push).
   */
  publishConfirmed(message: QueuedMessage, timeoutMs = 30_000): Promise<void> {
    const client = this.client;
    if (this.state !== 'connected' || !client) return Promise.reject(new Error('not connected'));
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(
        () => reject(new Error(`no confirmation within ${timeoutMs} ms`)),
        timeoutMs,
      );
      client.publish(
        message.topic,
        message.payload,
        { qos: message.qos, retain: message.retain },
        (error) => {
          this.clock.clearTimeout(timer);
          if (error) reject(error);
          else {
            this.counters.published += 1;
            resolve();
          }
        },
      );
    });
  }

  /**
   * Subscribes `topic` (a filter). A command topic's messages pass the command gate (size and
   * rate); a `state` filter (Home Assistant's status, the retained discovery configs) is what the
   * broker and Home Assistant publish, bounded by the broker alone.
   */
  subscribe(topic: string, kind: 'command' | 'state' = 'command'): void {
    if (kind === 'state') this.stateFilters.add(topic);
    if (this.subscriptions.has(topic)) return;
    this.subscriptions.add(topic);
    if (this.state === 'connected') this.client?.subscribe(topic, { qos: 0 });
  }

  unsubscribe(topic: string): void {
    this.stateFilters.delete(topic);
    if (!this.subscriptions.delete(topic)) return;
    if (this.state === 'connected') this.client?.unsubscribe(topic);
  }

  /** Disconnects cleanly (after `farewell`, e.g. availability offline) and stops retrying. */
  async close(farewell?: QueuedMessage): Promise<void> {
    this.clearRetry();
    const client = this.client;
    const wasConnected = this.state === 'connected';
    this.detach(false);
    this.state = 'idle';
    if (!client) return;
    if (!wasConnected) {
      client.end(true);
      return;
    }
    if (farewell)
      client.publish(farewell.topic, farewell.payload, { qos: farewell.qos, retain: farewell.retain });
    await new Promise<void>((resolve) => {
      const timer = this.clock.setTimeout(() => client.end(true, {}, () => resolve()), END_TIMEOUT_MS);
      client.end(false, {}, () => {
        this.clock.clearTimeout(timer);
        resolve();
      });
    });
  }

  private openClient(): void {
    this.clearRetry();
    this.detach(true);
    this.state = 'connecting';
    const attempt = ++this.attempt;
    loadMqttClient().then(
      (Client) => {
        // close() or a newer attempt came first.
        if (attempt === this.attempt && this.state === 'connecting') this.createClient(Client);
      },
      (error: Error) => {
        if (attempt !== this.attempt || this.state !== 'connecting') return;
        this.lastError = `cannot load mqtt.js: ${error.message}`;
        this.scheduleRetry();
      },
    );
  }

  private createClient(Client: typeof MqttClient): void {
    const options = this.options;
    let client: MqttClient;
    try {
      client = new Client(() => openSocket(options), clientOptionsOf(options));
    } catch (error) {
      this.lastError = (error as Error).message;
      this.scheduleRetry();
      return;
    }
    this.emit('status');
    this.client = client;
    client.on('error', (error) => {
      if (client !== this.client) return;
      this.lastError = error.message;
      this.emit('status');
    });
    client.on('connect', () => {
      if (client === this.client) this.onConnect(client);
    });
    client.on('close', () => {
      if (client !== this.client) return;
      const wasConnected = this.state === 'connected';
      this.detach(true);
      this.scheduleRetry();
      if (wasConnected) this.emit('disconnect');
    });
    client.on('message', (topic, payload, packet) => {
      if (client !== this.client) return;
      // A retained message is state the broker replays, not a command: no rate to spend on it.
      const isState = [...this.stateFilters].some((filter) => topicMatches(filter, topic));
      if (this.gate && !isState && !this.gate.admit(topic, payload, packet.retain)) return;
      this.emit('message', topic, payload, packet.retain);
    });
  }

  private onConnect(client: MqttClient): void {
    this.state = 'connected';
    this.lastError = undefined;
    this.backoff.reset();
    this.counters.connects += 1;
    for (const topic of this.subscriptions) client.subscribe(topic, { qos: 0 });
    for (const message of this.queue.drain()) this.send(client, message, true);
    this.emit('connect');
  }

  private send(client: MqttClient, message: QueuedMessage, requeueOnLoss: boolean): void {
    if (requeueOnLoss) this.inFlight.add(message);
    client.publish(message.topic, message.payload, { qos: message.qos, retain: message.retain }, (error) => {
      if (!error) {
        this.inFlight.delete(message);
        this.counters.published += 1;
        return;
      }
      // A lost connection fails pending callbacks; detach() has requeued or will requeue them.
      if (error.message === CONNECTION_CLOSED) return;
      this.inFlight.delete(message);
      this.counters.failed += 1;
      this.lastError = `publish to ${message.topic}: ${error.message}`;
      this.emit('status');
    });
  }

  /**
   * Forgets the current client (its late events are ignored) and requeues its unconfirmed messages;
   * `end` closes its socket at once.
   */
  private detach(end: boolean): void {
    const client = this.client;
    this.client = undefined;
    if (this.state === 'connected' || this.state === 'connecting') this.state = 'idle';
    this.queue.requeue([...this.inFlight]);
    this.inFlight.clear();
    if (end && client && !client.disconnecting) client.end(true);
  }

  private scheduleRetry(): void {
    this.clearRetry();
    const delay = this.backoff.next();
    this.state = 'waiting';
    this.retryInMs = delay;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.openClient();
    }, delay);
    this.retryTimer.unref();
    this.emit('status');
  }

  private clearRetry(): void {
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryInMs = undefined;
  }
}
