import type { ServiceStatus } from '../context.js';
import type { OutputView } from '../output.js';
import type { LinkStatus } from './broker-link.js';
import type { DiscoveryModule } from './ha-feed.js';
import type { MqttView } from './template-publisher.js';

/**
 * Why no connection is wanted, when none is: the reason in English and, where it is one of the
 * fixed reasons, its message key and arguments (docs/architecture.md#server-message-keys).
 */
export type Inactive = {
  state: 'stopped' | 'disabled' | 'error';
  reason: string;
  reasonKey?: string;
  reasonArgs?: Record<string, string>;
};

/**
 * The connection and discovery code (with TLS and the MQTT client behind it) loads when MQTT is
 * first switched on: most daemons never publish, and it would cost memory all the time.
 */
export async function loadLinkModules() {
  const [link, discovery] = await Promise.all([import('./broker-link.js'), import('./discovery.js')]);
  return { BrokerLink: link.BrokerLink, discovery: discovery as DiscoveryModule };
}
export type LinkModules = Awaited<ReturnType<typeof loadLinkModules>>;

/** Why no connection is wanted with these settings (undefined: stopped output), or undefined when one is. */
export function inactiveOf(view: OutputView<MqttView> | undefined): Inactive | undefined {
  if (!view) return { state: 'stopped', reason: 'service stopped', reasonKey: 'mqtt.reason.stopped' };
  if (view.blocked)
    return {
      state: 'stopped',
      reason: `${view.blocked}: MQTT publishing needs PLUS or PRO`,
      reasonKey: 'mqtt.reason.license',
      reasonArgs: { license: view.blocked.replace(/^license /, '') },
    };
  if (!view.slice.mqtt.enable)
    return { state: 'disabled', reason: 'mqtt.enable is false', reasonKey: 'mqtt.reason.disabled' };
  return undefined;
}

/** The 'mqtt' line of /api/v1/system: why it is off, or the link's state and counters. */
export function mqttStatusOf(
  inactive: Inactive | undefined,
  link: LinkStatus | undefined,
  mqtt: MqttView['mqtt'],
  templateErrors: number,
): ServiceStatus {
  if (inactive) {
    const { state, reason, reasonKey, reasonArgs } = inactive;
    if (state === 'error') return { state, error: reason };
    // The key beside the English reason: the web page words it in its language.
    return reasonKey
      ? { state, reason, reason_key: reasonKey, reason_args: reasonArgs ?? {} }
      : { state, reason };
  }
  if (!link) return { state: 'connecting', broker: mqtt.url };
  const { state: linkState, retryInMs, ...counters } = link;
  const state = linkState === 'connected' || linkState === 'connecting' ? linkState : 'disconnected';
  const status: ServiceStatus = { state, broker: mqtt.url, ...counters, template_errors: templateErrors };
  if (retryInMs !== undefined) status.retry_in_ms = retryInMs;
  status.discovery = mqtt.discovery.enable;
  return status;
}
