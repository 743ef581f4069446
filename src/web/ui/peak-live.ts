import type { PeakView } from '../../contracts/peak.js';
import { onStream } from './page-stream.js';

/**
 * The peak guard's view as GET /api/v1/peak and the `peak` events of the page's stream send it
 * (its contract: src/contracts/peak.ts): times ISO 8601 with the local offset, powers in kW.
 */
export type PeakData = PeakView;

type Listener = (data: PeakData) => void;

/**
 * The peak guard's events of the page's one stream (src/web/ui/page-stream.ts): the dashboard card
 * and the peak page both listen. A stream the server dropped as a slow consumer
 * (docs/architecture.md#hostile-input) misses what was sent meanwhile: its reconnect listeners
 * read that again.
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
    onStream('open', () => {
      if (!this.lost) return;
      this.lost = false;
      for (const listener of this.reconnectListeners) listener();
    });
    onStream('error', () => (this.lost = true));
    onStream<PeakData>('peak', (data) => {
      this.latest = data;
      for (const listener of this.listeners) listener(data);
    });
    onStream('peak_event', () => {
      for (const listener of this.eventListeners) listener();
    });
  }
}
