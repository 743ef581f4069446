import type { PeakView } from '../../contracts/peak.js';
import { pageRelative } from './api.js';

/**
 * The peak guard's view as GET /api/v1/peak and the `peak` events of /api/v1/peak/stream send it
 * (its contract: src/contracts/peak.ts): times ISO 8601 with the local offset, powers in kW.
 */
export type PeakData = PeakView;

type Listener = (data: PeakData) => void;

/**
 * One EventSource on /api/v1/peak/stream for the whole page: the dashboard card and the peak page
 * both listen. Reconnects as the dashboard's live stream does: the browser retries a dropped
 * stream itself; a refused one (503 client limit, 401) closes it, and then we retry after 5 s.
 * A stream the server dropped as a slow consumer (docs/architecture.md#hostile-input) misses what
 * was sent meanwhile: its reconnect listeners read that again.
 */
export class PeakLive {
  private readonly listeners: Listener[] = [];
  private readonly eventListeners: Array<() => void> = [];
  private readonly reconnectListeners: Array<() => void> = [];
  /** Whether the stream was open before and then lost (dropped, refused, or the server gone). */
  private lost = false;
  latest: PeakData | undefined;

  onUpdate(listener: Listener): void {
    this.listeners.push(listener);
    if (this.latest) listener(this.latest);
  }

  /** Called on every guard event (warning, shed, restore, new month peak, ...). */
  onEvent(listener: () => void): void {
    this.eventListeners.push(listener);
  }

  /**
   * Called when the stream opens again after it was lost: a guard event sent meanwhile (a window
   * that closed) never reached this page, so what the events keep current must be read again.
   */
  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  start(): void {
    const source = new EventSource(pageRelative('/api/v1/peak/stream'));
    source.onopen = () => {
      if (!this.lost) return;
      this.lost = false;
      for (const listener of this.reconnectListeners) listener();
    };
    source.onerror = () => {
      this.lost = true;
      if (source.readyState === EventSource.CLOSED) setTimeout(() => this.start(), 5_000);
    };
    source.addEventListener('peak', (event) => {
      this.latest = JSON.parse((event as MessageEvent<string>).data) as PeakData;
      for (const listener of this.listeners) listener(this.latest);
    });
    source.addEventListener('peak_event', () => {
      for (const listener of this.eventListeners) listener();
    });
  }
}
