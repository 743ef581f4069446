import type { OutputStatus, OutputView } from '../output.js';
import type { LinkStatus } from './broker-link.js';
import type { DiscoveryModule } from './ha-feed.js';
import type { MqttView } from './template-publisher.js';

/**
 * The facts of the 'mqtt' status line (docs/architecture.md#output-contract). Static ones come
 * from the apply (the broker, whether discovery is on, why the output is off); live ones from the
 * broker link (its word, counters, the pending retry). Every fact is optional: the link's exist
 * only while a link does, the reason only while the output is off.
 */
export type MqttFacts = {
  /** The broker link's own word: `connecting` (first attempt), `connected`, `disconnected` (retrying). */
  link?: 'connected' | 'connecting' | 'disconnected';
  broker?: string;
  discovery?: boolean;
  attempts?: number;
  connects?: number;
  published?: number;
  failed?: number;
  queued?: number;
  dropped?: number;
  template_errors?: number;
  /** When the link tries its broker again (while `disconnected`). */
  retry_in_ms?: number;
  /** Why the output is off (license, switch), in English with its message key (docs/architecture.md#server-message-keys). */
  reason?: string;
  reason_key?: string;
  reason_args?: Record<string, string>;
};

export type MqttStatus = OutputStatus<MqttFacts>;

/** The live facts: removed (`undefined`) while there is no link. */
export const LIVE_FACTS = [
  'link',
  'attempts',
  'connects',
  'published',
  'failed',
  'queued',
  'dropped',
  'template_errors',
  'retry_in_ms',
] as const;

/**
 * The connection and discovery code (with TLS and the MQTT client behind it) loads when MQTT is
 * first switched on: most daemons never publish, and it would cost memory all the time.
 */
export async function loadLinkModules() {
  const [link, discovery] = await Promise.all([import('./broker-link.js'), import('./discovery.js')]);
  return { BrokerLink: link.BrokerLink, discovery: discovery as DiscoveryModule };
}
export type LinkModules = Awaited<ReturnType<typeof loadLinkModules>>;

/**
 * Why no connection is wanted with these settings, as the facts of the status line, or undefined
 * when one is. The runner shows the state (`blocked`, `disabled`); the reason's key lets the web
 * page word it in its language.
 */
export function inactiveOf(view: OutputView<MqttView>): MqttFacts | undefined {
  if (view.blocked)
    return {
      reason: `${view.blocked}: MQTT publishing needs PLUS or PRO`,
      reason_key: 'mqtt.reason.license',
      reason_args: { license: view.blocked.replace(/^license /, '') },
    };
  if (!view.slice.mqtt.enable)
    return { reason: 'mqtt.enable is false', reason_key: 'mqtt.reason.disabled', reason_args: {} };
  return undefined;
}

/**
 * The link's live facts and its trouble: a link that lost (or never reached) its broker and
 * retries is `retrying` with the link's last error as the reason.
 */
export function linkFactsOf(
  link: LinkStatus,
  templateErrors: number,
): { facts: MqttFacts; trouble: string | undefined } {
  const { state: linkState, retryInMs, error, ...counters } = link;
  const word = linkState === 'connected' || linkState === 'connecting' ? linkState : 'disconnected';
  const facts: MqttFacts = {
    link: word,
    ...counters,
    template_errors: templateErrors,
    retry_in_ms: retryInMs,
  };
  // The first attempt is not trouble; an attempt after a failure still is (the error stays until a connect).
  const trouble =
    linkState === 'connected' ? undefined : word === 'disconnected' ? (error ?? 'disconnected') : error;
  return { facts, trouble };
}
