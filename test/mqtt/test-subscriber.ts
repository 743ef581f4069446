import { randomUUID } from 'node:crypto';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';

export interface ReceivedMessage {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
}

/**
 * The test's own MQTT client (mqtt.js against the real broker): records every message of its
 * subscriptions. `waitFor` has a deadline only so that a broken publisher fails the test instead of
 * hanging it; nothing asserts on time.
 */
export class TestSubscriber {
  readonly messages: ReceivedMessage[] = [];
  private waiters = new Set<() => void>();

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({
        topic,
        payload: payload.toString('utf8'),
        retain: packet.retain,
        qos: packet.qos,
      });
      for (const wake of this.waiters) wake();
    });
  }

  static async connect(url: string, topics: string[], options: IClientOptions = {}): Promise<TestSubscriber> {
    const client = await connectAsync(url, {
      reconnectPeriod: 0,
      clientId: `test-${randomUUID().slice(0, 8)}`,
      ...options,
    });
    const subscriber = new TestSubscriber(client);
    await client.subscribeAsync(topics, { qos: 1 });
    return subscriber;
  }

  /** Index of the next message; pass it to waitFor to look only at later messages. */
  mark(): number {
    return this.messages.length;
  }

  on(topic: string, since = 0): ReceivedMessage[] {
    return this.messages.slice(since).filter((message) => message.topic === topic);
  }

  async waitFor(
    what: string,
    predicate: (message: ReceivedMessage) => boolean,
    since = 0,
    deadlineMs = 15_000,
  ): Promise<ReceivedMessage> {
    let checked = since;
    return new Promise((resolve, reject) => {
      const check = (): void => {
        for (; checked < this.messages.length; checked++) {
          const message = this.messages[checked]!;
          if (predicate(message)) {
            cleanup();
            resolve(message);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `no message: ${what} (got ${JSON.stringify(this.messages.slice(since).map((m) => [m.topic, m.payload.slice(0, 80)]))})`,
          ),
        );
      }, deadlineMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /**
   * A round trip through the broker: every message the broker routed to us before it routed this
   * marker has arrived.
   */
  async sync(): Promise<void> {
    const topic = `test/sync/${randomUUID()}`;
    await this.client.subscribeAsync(topic, { qos: 1 });
    const since = this.mark();
    await this.client.publishAsync(topic, 'sync', { qos: 1 });
    await this.waitFor('sync marker', (message) => message.topic === topic, since);
    await this.client.unsubscribeAsync(topic);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
