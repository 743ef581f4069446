import type { EntityContributor, HaContribution } from './ha-contributors.js';

/** HA's default payload_press of an MQTT button. */
const PRESS = 'PRESS';

/**
 * One Home Assistant MQTT `button` per enabled action on the gateway's device
 * (docs/architecture.md#actions), contributed to discovery like the gateway's restart button
 * (./ha-contributors.ts): discovery announces their configs, clears those of actions that were
 * removed or disabled, and hands a non-retained PRESS on an action's command topic to `press`.
 */
export function actionButtonsContributor(
  enabledActionIds: () => readonly string[],
  press: (actionId: string) => void,
): EntityContributor {
  return (topics) =>
    enabledActionIds().map((id): HaContribution => ({
      entity: { key: `action_${id}`, name: `Action ${id}`, device: 'gateway', component: 'button' },
      fields: { command_topic: `${topics.actions}/${id}/press`, payload_press: PRESS },
      onCommand: (payload) => {
        if (payload === PRESS) press(id);
      },
    }));
}
