import { EventEmitter } from 'node:events';
import type { EventSource, FetchLike } from 'eventsource';
import { boundedEventStreamFetch, OUTGOING_BODY_LIMIT, OUTGOING_EVENT_LIMIT } from '../../outgoing.js';
import { MeterDataError } from '../decoder.js';
import { authenticatingFetch, type Credentials } from './http-auth.js';
import { readingFromLive, remoteMeterOf, type RemoteMeter } from './live-reading.js';
import type { ReadingTransport, ReadingTransportEvents } from './transport.js';
import { systemClock, type Clock } from '../../clock.js';

/** How long the one-off report request for the remote meter's identity may take. */
const REPORT_TIMEOUT_MS = 5000;
/** Used when the remote gateway does not show its report (FREE license, the real device's 404). */
const UNKNOWN_METER: RemoteMeter = { protocol: 'DSMR', identity: {} };

/**
 * Another gateway's live stream (`http://host/api/v1/live`, interface REMOTE): `event: live`
 * Server-Sent Events read with the eventsource package, Basic or Digest credentials from the URL.
 * The eventsource package would reconnect by itself every 3 s; instead any error after the stream
 * opened ends this transport ('close') so the meter input reconnects with its capped backoff.
 * Protocol and identity of the remote meter come from the remote report (`/api/v1/report`), read
 * once per connection with got, best effort.
 */
export class RemoteTransport extends EventEmitter<ReadingTransportEvents> implements ReadingTransport {
  private source: EventSource | undefined;
  private meter: RemoteMeter = UNKNOWN_METER;
  private closed = false;
  /** Rejects an open() still waiting for the stream when close() comes first. */
  private abandonOpen: (() => void) | undefined;
  private readonly fetch: FetchLike;

  constructor(
    private readonly url: string,
    private readonly credentials: Credentials,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    // Bounded like every outgoing request (docs/architecture.md#hostile-input): an event beyond the
    // limit is counted as an overflow and ends the stream; the meter input then reconnects.
    const bounded = boundedEventStreamFetch(authenticatingFetch(credentials), {
      clock: this.clock,
      onEventTooLarge: () =>
        this.emit(
          'reject',
          new MeterDataError('overflow', `remote live event longer than ${OUTGOING_EVENT_LIMIT} bytes`),
        ),
    });
    this.fetch = bounded;
  }

  get description(): string {
    return this.url;
  }

  async open(): Promise<void> {
    this.closed = false;
    this.meter = (await this.readRemoteMeter()) ?? UNKNOWN_METER;
    if (this.closed) throw new Error('closed while opening');
    // Loaded only by this source (another gateway's live stream), not by every daemon start.
    const { EventSource } = await import('eventsource');
    if (this.closed) throw new Error('closed while opening');
    const source = new EventSource(this.url, { fetch: this.fetch });
    this.source = source;
    await new Promise<void>((resolve, reject) => {
      let opened = false;
      this.abandonOpen = () => reject(new Error('closed while opening'));
      source.addEventListener('open', () => {
        opened = true;
        resolve();
      });
      source.addEventListener('error', (event) => {
        const reason = new Error(event.message ?? (event.code ? `HTTP ${event.code}` : 'stream error'));
        source.close();
        if (this.source !== source) return;
        this.source = undefined;
        if (opened) this.emit('close', reason);
        else reject(reason);
      });
      source.addEventListener('live', (event) => this.onLive(event.data as string));
    });
    this.abandonOpen = undefined;
  }

  private onLive(data: string): void {
    const result = readingFromLive(data, this.clock.now(), this.meter);
    if (result.ok) this.emit('reading', result.reading);
    else this.emit('reject', result.error);
  }

  private async readRemoteMeter(): Promise<RemoteMeter | undefined> {
    try {
      const { getJson } = await import('./authenticated-get.js');
      const { status, body, cut } = await getJson(
        new URL('report', this.url),
        this.credentials,
        REPORT_TIMEOUT_MS,
      );
      if (cut)
        this.emit(
          'reject',
          new MeterDataError('overflow', `remote report longer than ${OUTGOING_BODY_LIMIT} bytes`),
        );
      return status === 200 ? remoteMeterOf(body) : undefined;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const source = this.source;
    this.source = undefined;
    source?.close();
    this.abandonOpen?.();
    this.abandonOpen = undefined;
  }
}
