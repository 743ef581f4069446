import type { MeterSettings } from '../../config/types.js';
import { decodeCapture, detectCaptureProtocol } from '../protocols.js';
import { SimulatorTransport } from '../simulator/transport.js';
import type { MeterSource } from '../source.js';
import { FileReplayTransport } from './file-replay.js';
import { TcpTransport } from './tcp.js';
import type { D0SessionOptions } from '../d0/session.js';
import { D0RequestTransport } from './d0-request.js';
import { RemoteTransport } from './remote.js';
import { SerialTransport, d0ModeOf, lineSettingsOf, type SerialSource } from './serial.js';
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
 * probe first (the line settings depend on the protocol); it is refused here.
 */
export function createTransport(
  source: MeterSource,
  meter: MeterSettings,
  now: () => number = Date.now,
): MeterLink {
  switch (source.kind) {
    case 'simulator':
      return {
        delivers: 'bytes',
        transport: new SimulatorTransport(meter.simulator.seed, meter.simulator.interval * 1000),
      };
    case 'tcp':
      return { delivers: 'bytes', transport: new TcpTransport(source.host, source.port) };
    case 'file':
      return {
        delivers: 'bytes',
        transport: new FileReplayTransport(
          source.path,
          source.intervalMs,
          source.loop,
          frameSplitter(source.protocol),
        ),
      };
    case 'serial':
      return serialLink(source, meter);
    case 'remote':
      return { delivers: 'readings', transport: new RemoteTransport(source.url, source, now) };
  }
}

function serialLink(source: SerialSource, meter: MeterSettings): MeterLink {
  if (source.protocol === 'auto')
    throw new Error(`serial:${source.path}: protocol=auto must be resolved by the probe first`);
  const line = lineSettingsOf(source);
  if (source.protocol !== 'd0' || d0ModeOf(source) === 'push') {
    return { delivers: 'bytes', transport: new SerialTransport(source.path, line) };
  }
  // Readouts must come more often than meter.timeout, or the reading goes stale between polls.
  const pollIntervalMs = source.pollIntervalMs ?? Math.max(1000, (meter.timeout * 1000) / 2);
  const options: D0SessionOptions = { pollIntervalMs };
  if (source.address !== undefined) options.address = source.address;
  return { delivers: 'readings', transport: new D0RequestTransport(source.path, line, options) };
}
