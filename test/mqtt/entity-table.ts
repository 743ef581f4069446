import assert from 'node:assert/strict';

/** component, key, device_class, state_class, unit, entity_category (undefined: absent). */
export type EntityRow = [string, string, string?, string?, string?, string?];

/** The discovery config topic of one entity of the gateway `systemId`. */
export function configTopicOf(systemId: string): (component: string, key: string) => string {
  return (component, key) => `homeassistant/${component}/${systemId}/${key}/config`;
}

/**
 * Checks that every row's entity is announced with its unique_id, classes, unit and category, and
 * that nothing else is; returns each row's config for the checks a test adds.
 */
export function checkEntityTable(
  configs: ReadonlyMap<string, string>,
  rows: readonly EntityRow[],
  systemId: string,
): Array<{ row: EntityRow; config: Record<string, unknown> }> {
  const topic = configTopicOf(systemId);
  assert.equal(configs.size, rows.length);
  return rows.map((row) => {
    const [component, key, deviceClass, stateClass, unit, category] = row;
    const text = configs.get(topic(component, key));
    assert.ok(text, `${component} ${key} is announced`);
    const config = JSON.parse(text) as Record<string, unknown>;
    assert.equal(config.unique_id, `meter-gateway-${systemId}-${key}`);
    assert.equal(config.device_class, deviceClass, `${key} device_class`);
    assert.equal(config.state_class, stateClass, `${key} state_class`);
    assert.equal(config.unit_of_measurement, unit, `${key} unit`);
    assert.equal(config.entity_category, category, `${key} entity_category`);
    return { row, config };
  });
}
