import type { ActionsOutput } from '../actions/actions-output.js';
import type { AppContext } from '../context.js';
import type { CollectorSources } from '../metrics/collector.js';
import type { MetricsContributor, ModbusServerView } from '../metrics/gateway-samples.js';
import type { MeteredSource } from '../metrics/meter-samples.js';
import type { ModbusRtuService } from '../modbus/rtu-service.js';
import type { ModbusService } from '../modbus/service.js';
import type { MqttService } from '../mqtt/publisher.js';
import { VERSION } from '../version.js';
import type { LiveHub } from './routes/live.js';

/** The outputs whose counters `/metrics` shows; each one optional. */
export interface MetricsOutputs {
  mqtt?: MqttService;
  modbus?: ModbusService;
  modbusRtu?: ModbusRtuService;
  live?: LiveHub;
  actions?: ActionsOutput;
  /** Further series (the peak guard's demand values, once it exists). */
  contributors?: readonly MetricsContributor[];
}

/**
 * What the collector reads, adapted from the outputs: read at scrape time, never copied per reading.
 * `meters` is the meter registry's list, read at every scrape.
 */
export function metricsSourcesOf(
  ctx: AppContext,
  meters: () => Iterable<MeteredSource>,
  outputs: MetricsOutputs,
): CollectorSources {
  const { mqtt, modbus, modbusRtu, live, actions } = outputs;
  return {
    meters,
    contributors: outputs.contributors ?? [],
    now: ctx.now,
    gateway: {
      version: VERSION,
      ...(mqtt && {
        mqtt: () => {
          const status = mqtt.linkStatus();
          return (
            status && {
              connected: status.state === 'connected',
              published: status.published,
              failed: status.failed,
            }
          );
        },
      }),
      modbus: () => {
        const servers: ModbusServerView[] = [];
        if (modbus?.listeningPort !== undefined)
          servers.push({
            server: 'tcp',
            requests: modbus.slave.requests,
            exceptions: modbus.slave.exceptionCodes,
          });
        const rtu = modbusRtu?.counters;
        if (modbusRtu?.serving && rtu)
          servers.push({ server: 'rtu', requests: rtu.requests, exceptions: modbusRtu.exceptionCodes });
        return servers;
      },
      ...(live && { sseClients: () => live.size }),
      refusals: () => ctx.refusals.entries(),
      ...(actions && {
        actions: () =>
          Object.entries(actions.runner.countersOf()).map(([action, counters]) => ({
            action,
            runs: counters.runs,
            failed: counters.failed,
          })),
      }),
    },
  };
}
