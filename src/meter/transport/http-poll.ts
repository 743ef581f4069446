import { systemClock, type Clock, type Timer } from '../../clock.js';
import { EventEmitter } from 'node:events';
import { Backoff, RECONNECT_CAP_MS } from '../../backoff.js';
import { boundedRequest, outgoingCounters, type OutgoingCounters } from '../../outgoing.js';
import { MeterDataError } from '../decoder.js';
import { decodeDsmrFrame } from '../dsmr/decoder.js';
import { readingOfHomewizardData } from '../dongles/homewizard-data.js';
import { readingOfShellyStatus } from '../dongles/shelly-status.js';
import type { Reading } from '../../reading/reading.js';
import type { DongleSource } from '../source.js';
import type { MessageRef, ReadingTransport, ReadingTransportEvents } from './transport.js';

/** How long one request waits for the dongle's answer before it counts as a timeout. */
export const DONGLE_TIMEOUT_MS = 2000;

/** GET `path` of the dongle: the parsed JSON or the raw body; throws MeterDataError on a bad answer. */
type Get = (path: string) => Promise<Buffer>;

async function pollOnce(
  source: DongleSource,
  get: Get,
  now: () => number,
): Promise<{ reading: Reading; raw?: Buffer }> {
  if (source.kind === 'shelly') {
    // Shelly Gen2 RPC over HTTP GET: /rpc/<Method>?<params> (Gen2 docs, "RPC Protocol", HTTP GET).
    const [em, data] = await Promise.all([get('/rpc/EM.GetStatus?id=0'), get('/rpc/EMData.GetStatus?id=0')]);
    return { reading: readingOfShellyStatus(jsonOf(em), jsonOf(data), now()) };
  }
  if (source.telegram) {
    // HomeWizard /api/v1/telegram: the last valid raw DSMR telegram, text/plain (docs/v1/telegram.mdx).
    const raw = await get('/api/v1/telegram');
    const result = decodeDsmrFrame(raw, now());
    if (!result.ok) throw result.error;
    return { reading: result.reading, raw };
  }
  return { reading: readingOfHomewizardData(jsonOf(await get('/api/v1/data')), now()) };
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new MeterDataError('parse', 'answer is not JSON');
  }
}

/**
 * A dongle read over HTTP (docs/architecture.md#dongle-sources): a HomeWizard P1 meter
 * (`homewizard://`) or a Shelly Pro 3EM (`shelly://`), polled every interval through got with the
 * bounded request helper. Like the Modbus source: the first poll must answer for the source to
 * open; a failed poll (timeout, HTTP error, bad JSON) is counted, reported as a rejection and retried
 * after the capped backoff (1 s doubling to 30 s, never sooner than the interval); a refused connection
 * closes the transport and the meter input reopens it; the store turns silence into NO DATA.
 */
export class DonglePollTransport extends EventEmitter<ReadingTransportEvents> implements ReadingTransport {
  readonly description: string;
  readonly descriptionKey: MessageRef;
  readonly counters: OutgoingCounters & { polls: number; readings: number; failures: number } = {
    ...outgoingCounters(),
    polls: 0,
    readings: 0,
    failures: 0,
  };
  private readonly backoff = new Backoff(1000, RECONNECT_CAP_MS);
  private timer: Timer | undefined;
  private closed = true;
  private readonly base: string;

  constructor(
    private readonly source: DongleSource,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    const host = source.host.includes(':') ? `[${source.host}]` : source.host;
    this.base = `http://${host}:${source.port}`;
    const what = source.kind === 'shelly' ? 'Shelly Pro 3EM' : 'HomeWizard P1 meter';
    this.description = `${what} at ${source.host}:${source.port}`;
    this.descriptionKey = {
      key: source.kind === 'shelly' ? 'source.shelly' : 'source.homewizard',
      args: { host: source.host, port: source.port },
    };
  }

  private async get(path: string): Promise<Buffer> {
    const { got, TimeoutError } = await import('got');
    try {
      const answer = await boundedRequest(got, `${this.base}${path}`, {
        method: 'GET',
        timeout: { request: DONGLE_TIMEOUT_MS },
      });
      if (answer.cut) {
        this.counters.answers_cut += 1;
        throw new MeterDataError('overflow', `${path}: answer too long`);
      }
      if (answer.statusCode !== 200) throw new MeterDataError('parse', `${path}: HTTP ${answer.statusCode}`);
      return answer.body;
    } catch (error) {
      if (error instanceof TimeoutError) {
        this.counters.timeouts += 1;
        throw new MeterDataError('timeout', `${path}: no answer within ${DONGLE_TIMEOUT_MS} ms`);
      }
      throw error;
    }
  }

  async open(): Promise<void> {
    this.closed = false;
    // The first poll decides whether the dongle is there (absent or refusing: open rejects).
    try {
      await this.poll(true);
    } catch (error) {
      this.closed = true;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = this.clock.setTimeout(() => void this.poll(false).catch(() => undefined), delayMs);
  }

  private async poll(first: boolean): Promise<void> {
    if (this.closed) return;
    this.counters.polls += 1;
    const started = this.clock.now();
    let delay = this.source.intervalMs;
    try {
      const { reading, raw } = await pollOnce(this.source, (path) => this.get(path), this.clock.now);
      if (this.closed) return;
      this.counters.readings += 1;
      this.backoff.reset();
      // Start to start: a slow answer does not stretch the cadence.
      delay = Math.max(0, this.source.intervalMs - (this.clock.now() - started));
      if (raw) this.emit('raw', raw);
      this.emit('reading', reading);
    } catch (error) {
      if (this.closed) return;
      if (!(error instanceof MeterDataError)) {
        // No HTTP answer at all (refused, unreachable): the link is gone.
        if (first) throw error;
        this.closed = true;
        this.emit('close', error as Error);
        return;
      }
      this.counters.failures += 1;
      this.emit('reject', error);
      delay = Math.max(delay, this.backoff.next());
    }
    this.schedule(delay);
  }
}
