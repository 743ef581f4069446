/**
 * The answer of POST /api/v1/meter/probe, declared once for the probe that produces it and the web
 * page that shows it (a declaration file: the page imports it type-only).
 */

export interface ProbeStepReport {
  label: string;
  /** "115200 8N1" */
  line: string;
  bytes: number;
  outcome: 'found' | 'no frame' | 'silent' | 'skipped';
}

export interface ProbeResultView {
  status: 'OK' | 'NOT RECOGNIZED' | 'NOT CONNECTED';
  path: string;
  protocol?: 'dsmr' | 'sml' | 'd0';
  meterProtocol?: 'DSMR' | 'SML' | 'IEC62056-21' | 'MODBUS';
  line?: { baudRate: number; dataBits: 7 | 8; parity: 'none' | 'even' | 'odd'; stopBits: 1 | 2 };
  /** IEC 62056-21: polled with sign-on (request) or sending by itself (push). */
  d0Mode?: 'request' | 'push';
  /** DSMR telegrams arrive encrypted (Smarty); `meter.encryption_key` is needed. */
  encrypted?: boolean;
  identity?: {
    prefix?: string;
    vendor?: string;
    model?: string;
    id?: string;
    protocolVersion?: string;
    logicalName?: string;
  };
  /** The `meter.source` URI to use. */
  source?: string;
  steps: ProbeStepReport[];
  elapsedMs: number;
  /** Why the port could not be used (NOT CONNECTED). */
  error?: string;
}
