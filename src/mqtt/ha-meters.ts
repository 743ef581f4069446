import type { AppContext } from '../context.js';
import type { HaStateClass } from '../reading/quantities.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import type { Reading } from '../reading/reading.js';
import type { BrokerLink } from './broker-link.js';
import type { EntityContributor, HaContribution } from './ha-contributors.js';
import type { DiscoveryTopics } from './ha-entities.js';

/**
 * The further meters on MQTT (docs/architecture.md#several-meters): a state topic per meter
 * (`meter-gateway/<system id>/meters/<id>/state`, flat JSON per reading) with a retained
 * availability topic, and one Home Assistant device per meter (linked to the gateway with
 * `via_device`) whose entities fit its role. A removed meter's entities drop out of the
 * contributor, so discovery clears their retained configs.
 */

export function meterTopics(systemId: string, id: string): { state: string; availability: string } {
  const base = `meter-gateway/${systemId}/meters/${id}`;
  return { state: `${base}/state`, availability: `${base}/availability` };
}

interface MeterQuantity {
  /** Key in the meter's state JSON. */
  key: 'power_in' | 'power_out' | 'energy_in' | 'energy_out';
  obis: string;
  kind: 'power' | 'energy';
}

const QUANTITIES: readonly MeterQuantity[] = [
  { key: 'power_in', obis: '1.7.0', kind: 'power' },
  { key: 'power_out', obis: '2.7.0', kind: 'power' },
  { key: 'energy_in', obis: '1.8.0', kind: 'energy' },
  { key: 'energy_out', obis: '2.8.0', kind: 'energy' },
];

/**
 * Entity names by role. A meter's import is what flows into it from the grid side, its export what
 * it feeds back: a PV meter exports what the inverter produces, a battery meter imports while
 * charging and exports while discharging. Roles that only consume have no export entities.
 */
const NAMES: Record<string, Partial<Record<MeterQuantity['key'], string>>> = {
  pv: {
    power_out: 'Production power',
    energy_out: 'Energy produced',
    power_in: 'Standby power',
    energy_in: 'Standby energy',
  },
  battery: {
    power_in: 'Charge power',
    power_out: 'Discharge power',
    energy_in: 'Energy charged',
    energy_out: 'Energy discharged',
  },
  ev: { power_in: 'Charging power', energy_in: 'Energy charged' },
  heat_pump: { power_in: 'Power', energy_in: 'Energy' },
  consumer: { power_in: 'Power', energy_in: 'Energy' },
  grid: {
    power_in: 'Import power',
    power_out: 'Export power',
    energy_in: 'Energy imported',
    energy_out: 'Energy exported',
  },
  other: {
    power_in: 'Import power',
    power_out: 'Export power',
    energy_in: 'Energy imported',
    energy_out: 'Energy exported',
  },
};

/** The state JSON of a reading: kW and kWh, null for what the meter does not send. */
export function meterState(reading: Reading): Record<string, number | null> {
  const state: Record<string, number | null> = {};
  for (const quantity of QUANTITIES) state[quantity.key] = reading.values.get(quantity.obis)?.value ?? null;
  return state;
}

function contributions(meter: MeterHandle, systemId: string, gatewayAvailability: string): HaContribution[] {
  const topics = meterTopics(systemId, meter.id);
  const names = NAMES[meter.role] ?? NAMES.other!;
  return QUANTITIES.flatMap((quantity) => {
    const name = names[quantity.key];
    if (name === undefined) return [];
    const energy = quantity.kind === 'energy';
    const stateClass: HaStateClass = energy ? 'total_increasing' : 'measurement';
    return [
      {
        entity: {
          key: `meter_${meter.id}_${quantity.key}`,
          name,
          device: { meter: meter.id, name: meter.name, role: meter.role },
          deviceClass: energy ? 'energy' : 'power',
          stateClass,
          unit: energy ? 'kWh' : 'kW',
        },
        fields: {
          state_topic: topics.state,
          value_template: `{{ value_json.${quantity.key} | default('') }}`,
          availability: [{ topic: gatewayAvailability }, { topic: topics.availability }],
          availability_mode: 'all',
          payload_available: 'online',
          payload_not_available: 'offline',
        },
      },
    ];
  });
}

/** The HA entities of every further meter (`meters()`: those of the slice applied last), as a discovery contributor. */
export function metersContributor(systemId: string, meters: () => readonly MeterHandle[]): EntityContributor {
  return (topics: DiscoveryTopics) =>
    meters().flatMap((meter) => contributions(meter, systemId, topics.availability));
}

/**
 * Publishes every further meter's state and availability while the link lives. The meters are
 * the ones of the MQTT output's slice (`meters.all()`, docs/architecture.md#output-contract): the
 * runner applies a new slice when one comes, goes or restarts, and `sync` follows it.
 */
export class MetersStatePublisher {
  /** The handle followed under each id, and how to stop following it. */
  private readonly followed = new Map<string, { meter: MeterHandle; off: () => void }>();
  private readonly lastSent = new Map<string, number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly link: Pick<BrokerLink, 'publish' | 'connected'>,
    private readonly intervalMs: () => number,
    /** A meter came or went: discovery announces again (and clears what vanished). */
    private readonly onChange: () => void,
    meters: readonly MeterHandle[],
  ) {
    for (const meter of meters) this.follow(meter);
  }

  /** Follows exactly `meters` (further meters only); a meter gone has its retained availability cleared. */
  sync(meters: readonly MeterHandle[]): void {
    let changed = false;
    const wanted = new Map(meters.map((meter) => [meter.id, meter]));
    for (const [id, { meter, off }] of this.followed) {
      if (wanted.get(id) === meter) continue;
      off();
      this.followed.delete(id);
      this.lastSent.delete(id);
      changed = true;
      if (wanted.has(id)) continue;
      const topics = meterTopics(this.ctx.system.id, id);
      // Retained messages of a meter that is gone are cleared (an empty retained payload).
      this.link.publish({ topic: topics.availability, payload: '', qos: 1, retain: true }, 'drop');
    }
    for (const meter of meters) {
      if (this.followed.has(meter.id)) continue;
      this.follow(meter);
      changed = true;
    }
    if (changed) this.onChange();
  }

  private follow(meter: MeterHandle): void {
    const topics = meterTopics(this.ctx.system.id, meter.id);
    const onReading = (reading: Reading): void => {
      const now = this.ctx.now();
      const last = this.lastSent.get(meter.id) ?? 0;
      if (now - last < this.intervalMs()) return;
      this.lastSent.set(meter.id, now);
      this.link.publish({ topic: topics.availability, payload: 'online', qos: 1, retain: true }, 'drop');
      this.link.publish(
        { topic: topics.state, payload: JSON.stringify(meterState(reading)), qos: 0, retain: false },
        'drop',
      );
    };
    const onMeter = (): void => {
      if (meter.store.latest !== undefined) return;
      this.lastSent.delete(meter.id);
      this.link.publish({ topic: topics.availability, payload: 'offline', qos: 1, retain: true }, 'drop');
    };
    meter.store.on('reading', onReading);
    meter.store.on('meter', onMeter);
    this.followed.set(meter.id, {
      meter,
      off: () => {
        meter.store.off('reading', onReading);
        meter.store.off('meter', onMeter);
      },
    });
  }

  stop(): void {
    for (const { off } of this.followed.values()) off();
    this.followed.clear();
  }
}
