import type { FamilySpec } from './families.js';
import { addSample, type Samples } from './meter-samples.js';

/** The MQTT link as the metrics see it; undefined while MQTT is off. */
export interface MqttLinkView {
  connected: boolean;
  /** Messages the broker accepted since the link was made. */
  published: number;
  /** Messages that could not be sent (dropped or refused). */
  failed: number;
}

/** One Modbus slave (TCP or RTU) and its counters. */
export interface ModbusServerView {
  server: string;
  requests: number;
  /** Exception replies by exception code (Modbus Application Protocol 1.1b3 §7: 1 .. 4, ...). */
  exceptions: ReadonlyMap<number, number>;
}

export interface ActionCountersView {
  action: string;
  runs: number;
  failed: number;
}

/** Where the gateway series come from; each provider is read at scrape time. Absent: no series. */
export interface GatewaySources {
  version: string;
  mqtt?: () => MqttLinkView | undefined;
  modbus?: () => Iterable<ModbusServerView>;
  sseClients?: () => number;
  actions?: () => Iterable<ActionCountersView>;
  /** Hostile input refused at the edge, by reason (docs/architecture.md#hostile-input). */
  refusals?: () => Iterable<[string, number]>;
}

/**
 * A further source of series (the peak guard's demand values): its families are registered once, its samples
 * collected at every scrape.
 */
export interface MetricsContributor {
  readonly families: readonly FamilySpec[];
  collect(add: (family: FamilySpec, labels: Record<string, string>, value: number) => void): void;
}

export const GATEWAY_FAMILIES = {
  build: {
    name: 'meter_gateway_build_info',
    help: 'Version of the meter gateway; always 1',
    type: 'gauge',
    labels: ['version'],
  },
  mqttConnected: {
    name: 'meter_gateway_mqtt_connected',
    help: '1 while the MQTT broker connection is up (absent while MQTT is off)',
    type: 'gauge',
    labels: [],
  },
  mqttPublished: {
    name: 'meter_gateway_mqtt_published_messages_total',
    help: 'MQTT messages the broker accepted since the connection settings last changed',
    type: 'counter',
    labels: [],
  },
  mqttFailed: {
    name: 'meter_gateway_mqtt_publish_failures_total',
    help: 'MQTT messages that could not be published since the connection settings last changed',
    type: 'counter',
    labels: [],
  },
  modbusRequests: {
    name: 'meter_gateway_modbus_requests_total',
    help: 'Modbus requests answered by the slave (exception replies included)',
    type: 'counter',
    labels: ['server'],
  },
  modbusExceptions: {
    name: 'meter_gateway_modbus_exceptions_total',
    help: 'Modbus exception replies by exception code',
    type: 'counter',
    labels: ['server', 'code'],
  },
  sseClients: {
    name: 'meter_gateway_sse_clients',
    help: 'Clients connected to the live stream (/api/v1/live)',
    type: 'gauge',
    labels: [],
  },
  actionRuns: {
    name: 'meter_gateway_action_runs_total',
    help: 'Runs of an action (any trigger)',
    type: 'counter',
    labels: ['action'],
  },
  actionFailures: {
    name: 'meter_gateway_action_failures_total',
    help: 'Runs of an action that failed',
    type: 'counter',
    labels: ['action'],
  },
  refused: {
    name: 'meter_gateway_refused_total',
    help: 'Hostile input refused at the edge (datagrams, frames, requests, commands, slow stream clients), by reason',
    type: 'counter',
    labels: ['reason'],
  },
} as const satisfies Record<string, FamilySpec>;

const G = GATEWAY_FAMILIES;

/** The gateway's own series at scrape time. */
export function gatewaySamples(samples: Samples, sources: GatewaySources): void {
  addSample(samples, G.build, { version: sources.version }, 1);
  const mqtt = sources.mqtt?.();
  if (mqtt) {
    addSample(samples, G.mqttConnected, {}, mqtt.connected ? 1 : 0);
    addSample(samples, G.mqttPublished, {}, mqtt.published);
    addSample(samples, G.mqttFailed, {}, mqtt.failed);
  }
  for (const server of sources.modbus?.() ?? []) {
    addSample(samples, G.modbusRequests, { server: server.server }, server.requests);
    for (const [code, count] of [...server.exceptions].sort(([a], [b]) => a - b))
      addSample(samples, G.modbusExceptions, { server: server.server, code: String(code) }, count);
  }
  if (sources.sseClients) addSample(samples, G.sseClients, {}, sources.sseClients());
  for (const action of sources.actions?.() ?? []) {
    addSample(samples, G.actionRuns, { action: action.action }, action.runs);
    addSample(samples, G.actionFailures, { action: action.action }, action.failed);
  }
  for (const [reason, count] of sources.refusals?.() ?? []) addSample(samples, G.refused, { reason }, count);
}
