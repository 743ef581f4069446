import type { AppContext } from '../context.js';
import type { PeakEvent } from '../peak/engine-types.js';
import type { PeakGuard } from '../peak/peak-guard.js';
import type { PeakView } from '../contracts/peak.js';
import { localIso } from '../peak/window.js';
import type { PeakSettingsView } from './template-publisher.js';
import type { DiscoveryLink } from './ha-topics.js';
import { PEAK_EVENT_TYPES } from './ha-peak.js';
import { PEAK_SETTINGS, type PeakCommand, type PeakCommandCounts } from './peak-commands.js';
import { ServiceMqtt } from './service-mqtt.js';

/**
 * What the MQTT output needs of the peak guard: its API view and its emitter (subscribed, never
 * polled). Each subscription returns its remover, so the publisher of a closed link leaves no
 * listener behind.
 */
export interface PeakFeed {
  /** GET /api/v1/peak's answer. */
  view(): PeakView;
  onUpdate(listener: () => void): () => void;
  onEvent(listener: (event: PeakEvent) => void): () => void;
}

export function peakFeedOf(_ctx: AppContext, guard: PeakGuard): PeakFeed {
  return {
    view: () => guard.view(),
    onUpdate(listener) {
      guard.on('update', listener);
      return () => guard.off('update', listener);
    },
    onEvent(listener) {
      guard.on('event', listener);
      return () => guard.off('event', listener);
    },
  };
}

/** The view without the window's clock fields: what a state message is sent again for. */
function changeKey(view: PeakView): string {
  const window = view.window as Record<string, unknown> | null | undefined;
  return JSON.stringify({ ...view, window: window && { ...window, elapsed_s: null, remaining_s: null } });
}

const EVENT_TYPES: ReadonlySet<string> = new Set(PEAK_EVENT_TYPES);

/**
 * The peak guard on MQTT (docs/architecture.md#peak-guard-outputs), one per broker link
 * (./service-mqtt.ts): the retained state (GET /api/v1/peak's JSON), sent when it changed, so at
 * most once per reading (the clock fields alone send nothing); the retained settings; the events,
 * not retained; the command topics.
 */
export class PeakMqtt extends ServiceMqtt<PeakCommand, PeakSettingsView> {
  constructor(
    ctx: AppContext,
    link: DiscoveryLink,
    private readonly feed: PeakFeed,
    counts: PeakCommandCounts,
    reannounce: () => void,
    settings: PeakSettingsView,
  ) {
    super(ctx, link, PEAK_SETTINGS, counts, reannounce, settings);
    this.removers.push(feed.onUpdate(() => this.publishCurrentState()));
    this.removers.push(feed.onEvent((event) => this.publishEvent(event)));
  }

  protected publishCurrentState(): void {
    this.sendState(() => {
      const view = this.feed.view();
      // The guard not running yet (it reconciles after this listener): its first update follows.
      if (view.state === 'off') return undefined;
      return { key: changeKey(view), payload: () => JSON.stringify(view) };
    });
  }

  protected settingsMessage({ enabled, limit_kw, mode }: PeakSettingsView): object {
    return { enabled, limit_kw, mode };
  }

  private publishEvent(event: PeakEvent): void {
    if (!this.enabled() || !EVENT_TYPES.has(event.type)) return;
    const message: Record<string, unknown> = { event_type: event.type, at: localIso(event.at) };
    if (event.stage !== undefined) message.stage = event.stage;
    if (event.kw !== undefined) message.kw = Math.round(event.kw * 1000) / 1000;
    this.sendEvent(message);
  }
}
