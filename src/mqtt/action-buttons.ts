import type { DiscoveryLink } from './discovery.js';
import type { DeviceInfo } from './ha-entities.js';

/** What the buttons are built from: discovery on/off and prefix, the gateway, the enabled actions. */
export interface ActionButtonSettings {
  enabled: boolean;
  prefix: string;
  device: DeviceInfo;
  actionIds: readonly string[];
}

/** The gateway's HA device identifier, as the sensors' device blocks name it (ha-entities.ts). */
function gatewayIdentifier(systemId: string): string {
  return `meter-gateway-${systemId}`;
}

/** HA's default payload_press of an MQTT button. */
const PRESS = 'PRESS';

function buttonConfigTopic(prefix: string, systemId: string, key: string): string {
  return `${prefix}/button/${systemId}/${key}/config`;
}

function commandTopic(systemId: string, actionId: string): string {
  return `meter-gateway/${systemId}/action/${actionId}/press`;
}

/**
 * One Home Assistant MQTT `button` per enabled action on the gateway's device
 * (docs/architecture.md#actions): pressing it publishes PRESS to the action's command topic, which
 * calls the action. Retained button configs of our system id that no enabled action has any more
 * are cleared (empty retained payload), as the sensors' are.
 */
export class ActionButtons {
  private retained = new Set<string>();

  constructor(
    private readonly link: DiscoveryLink,
    private settings: ActionButtonSettings,
    private readonly press: (actionId: string) => void,
  ) {
    this.subscribe(settings);
  }

  configure(settings: ActionButtonSettings): void {
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    this.unsubscribe(this.settings);
    this.settings = settings;
    this.subscribe(settings);
    if (this.link.connected) this.announce();
  }

  /** Every config again after a (re)connect. */
  announce(): void {
    const { prefix, device, actionIds, enabled } = this.settings;
    const wanted = enabled ? actionIds : [];
    for (const id of wanted) {
      const key = `action_${id}`;
      const config = {
        name: `Action ${id}`,
        unique_id: `meter-gateway-${device.systemId}-${key}`,
        command_topic: commandTopic(device.systemId, id),
        payload_press: PRESS,
        device: { identifiers: [gatewayIdentifier(device.systemId)] },
        origin: { name: 'meter-gateway', sw_version: device.firmware },
      };
      if (
        this.link.publish(
          {
            topic: buttonConfigTopic(prefix, device.systemId, key),
            payload: JSON.stringify(config),
            qos: 1,
            retain: true,
          },
          'drop',
        )
      )
        this.retained.add(key);
    }
    this.clearVanished();
  }

  onMessage(topic: string, payload: Buffer, retained: boolean): void {
    const { prefix, device, actionIds, enabled } = this.settings;
    const commandHead = `meter-gateway/${device.systemId}/action/`;
    if (topic.startsWith(commandHead) && topic.endsWith('/press')) {
      const id = topic.slice(commandHead.length, -'/press'.length);
      if (enabled && !retained && payload.toString() === PRESS && actionIds.includes(id)) this.press(id);
      return;
    }
    const head = `${prefix}/button/${device.systemId}/`;
    if (!retained || payload.length === 0 || !topic.startsWith(head) || !topic.endsWith('/config')) return;
    this.retained.add(topic.slice(head.length, -'/config'.length));
    this.clearVanished();
  }

  stop(): void {
    this.unsubscribe(this.settings);
  }

  private clearVanished(): void {
    const { prefix, device, actionIds, enabled } = this.settings;
    for (const key of this.retained) {
      if (enabled && actionIds.some((id) => `action_${id}` === key)) continue;
      const topic = buttonConfigTopic(prefix, device.systemId, key);
      if (this.link.publish({ topic, payload: '', qos: 1, retain: true }, 'drop')) this.retained.delete(key);
    }
  }

  private subscribe(settings: ActionButtonSettings): void {
    this.link.subscribe(commandTopic(settings.device.systemId, '+'));
    this.link.subscribe(buttonConfigTopic(settings.prefix, settings.device.systemId, '+'));
  }

  private unsubscribe(settings: ActionButtonSettings): void {
    this.link.unsubscribe(commandTopic(settings.device.systemId, '+'));
    this.link.unsubscribe(buttonConfigTopic(settings.prefix, settings.device.systemId, '+'));
  }
}
