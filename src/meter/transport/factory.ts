import { systemClock, type Clock } from '../../clock.js';
import type { MeterSettings } from '../../config/types.js';
import { decodeCapture, detectCaptureProtocol } from '../protocols.js';
import type { MeterSource } from '../source.js';
import type { D0SessionOptions } from '../d0/session.js';
import type { SerialSource } from './serial.js';
import type { ByteTransport, ReadingTransport } from './transport.js';

/** Cuts a capture into the frames its protocol decoder finds, for paced replay. */
function frameSplitter(protocol: 'auto' | 'dsmr' | 'sml' | 'd0'): (bytes: Buffer) => Buffer[] {
  return (bytes) => {
    const concrete = protocol === 'auto' ? detectCaptureProtocol(bytes) : protocol;
    if (!concrete) return [bytes];
    return decodeCapture(bytes, concrete).flatMap((result) => (result.frame ? [result.frame] : []));
  };
}

/** A transport together with what it delivers: bytes for a decoder, or finished readings. */
export type MeterLink =
  { delivers: 'bytes'; transport: ByteTransport } | { delivers: 'readings'; transport: ReadingTransport };

/**
 * The transport of a meter source. `serial` with `protocol=auto` must have been resolved by the
 * probe first (the line settings depend on the protocol); it is refused here. Only the configured
 * kind's module is loaded: a daemon reads one meter, through one transport.
 */
export async function createTransport(
  source: MeterSource,
  meter: MeterSettings,
  clock: Clock = systemClock,
): Promise<MeterLink> {
  switch (source.kind) {
    case 'simulator': {
      const { SimulatorTransport } = await import('../simulator/transport.js');
      return {
        delivers: 'bytes',
        transport: new SimulatorTransport(meter.simulator.seed, meter.simulator.interval * 1000, clock),
      };
    }
    case 'tcp': {
      const { TcpTransport } = await import('./tcp.js');
      return { delivers: 'bytes', transport: new TcpTransport(source.host, source.port, undefined, clock) };
    }
    case 'file': {
      const { FileReplayTransport } = await import('./file-replay.js');
      return {
        delivers: 'bytes',
        transport: new FileReplayTransport(
          source.path,
          source.intervalMs,
          source.loop,
          frameSplitter(source.protocol),
          clock,
        ),
      };
    }
    case 'serial':
      return serialLink(source, meter, clock);
    case 'remote': {
      const { RemoteTransport } = await import('./remote.js');
      return { delivers: 'readings', transport: new RemoteTransport(source.url, source, clock) };
    }
    case 'modbus-rtu':
    case 'modbus-tcp': {
      const { ModbusMeterTransport } = await import('../modbus/modbus-transport.js');
      return { delivers: 'readings', transport: new ModbusMeterTransport(source, clock) };
    }
    case 'homewizard':
    case 'shelly': {
      const { DonglePollTransport } = await import('./http-poll.js');
      return { delivers: 'readings', transport: new DonglePollTransport(source, clock) };
    }
  }
}

async function serialLink(source: SerialSource, meter: MeterSettings, clock: Clock): Promise<MeterLink> {
  if (source.protocol === 'auto')
    throw new Error(`serial:${source.path}: protocol=auto must be resolved by the probe first`);
  const { SerialTransport, d0ModeOf, lineSettingsOf } = await import('./serial.js');
  const line = lineSettingsOf(source);
  if (source.protocol !== 'd0' || d0ModeOf(source) === 'push') {
    return { delivers: 'bytes', transport: new SerialTransport(source.path, line) };
  }
  // Readouts must come more often than meter.timeout, or the reading goes stale between polls.
  const pollIntervalMs = source.pollIntervalMs ?? Math.max(1000, (meter.timeout * 1000) / 2);
  const options: D0SessionOptions = { pollIntervalMs, clock };
  if (source.address !== undefined) options.address = source.address;
  const { D0RequestTransport } = await import('./d0-request.js');
  return { delivers: 'readings', transport: new D0RequestTransport(source.path, line, options) };
}
