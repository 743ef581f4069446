import { parseSource, type MeterSource } from '../source.js';
import type { SerialSource } from '../transport/serial.js';
import { probeSerialPort, type ProbeResult } from './probe.js';
import { systemClock, type Clock } from '../../clock.js';

export type DetectionOutcome =
  | { kind: 'found'; source: MeterSource; probe: ProbeResult }
  | { kind: 'absent' | 'unrecognized'; reason: string };

/**
 * `serial:...?protocol=auto` for the meter input: the probe decides protocol and line settings;
 * the answer is kept for reconnects (an unplugged cable comes back with the same meter) until
 * `forget()` (settings changed, or a link opened with it never produced a valid frame).
 */
export class SerialDetection {
  /** A serial source with its protocol, or the modbus-rtu source of a Modbus meter on the port. */
  private detected: (MeterSource & { path: string }) | undefined;
  private abort: AbortController | undefined;
  private running: Promise<ProbeResult> | undefined;

  constructor(private readonly clock: Clock = systemClock) {}

  /** The source detected earlier for this port, if any. */
  cached(source: SerialSource): MeterSource | undefined {
    return this.detected?.path === source.path ? this.detected : undefined;
  }

  /** Probes the port (up to 30 s); cancel() ends the probe early. */
  async resolve(source: SerialSource, encryptionKey?: string): Promise<DetectionOutcome> {
    const abort = new AbortController();
    this.abort = abort;
    const options = { signal: abort.signal, clock: this.clock, ...(encryptionKey ? { encryptionKey } : {}) };
    const running = probeSerialPort(source.path, options);
    this.running = running;
    const probe = await running;
    if (this.abort === abort) {
      this.abort = undefined;
      this.running = undefined;
    }
    if (abort.signal.aborted) return { kind: 'unrecognized', reason: 'detection cancelled' };
    if (probe.status === 'NOT CONNECTED')
      return { kind: 'absent', reason: `cannot open ${source.path}: ${probe.error}` };
    if (probe.status !== 'OK' || !probe.source) {
      return {
        kind: 'unrecognized',
        reason: `no DSMR, SML or IEC 62056-21 frame and no Modbus RTU meter on ${source.path}`,
      };
    }
    const found = parseSource(probe.source) as MeterSource & { path: string };
    if (found.kind === 'serial') {
      if (source.pollIntervalMs !== undefined) found.pollIntervalMs = source.pollIntervalMs;
      if (source.address !== undefined) found.address = source.address;
    }
    this.detected = found;
    return { kind: 'found', source: found, probe };
  }

  forget(): void {
    this.detected = undefined;
  }

  /** Ends a probe in progress (meter input stopping or restarting) and waits until its port is closed. */
  async cancel(): Promise<void> {
    const running = this.running;
    this.abort?.abort();
    this.abort = undefined;
    this.running = undefined;
    await running?.catch(() => undefined);
  }
}
