import { systemClock, type Clock } from '../clock.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildReport } from '../reading/report.js';
import { ReadingStore } from '../reading/store.js';
import { readSystemId } from '../system-id.js';
import { VERSION } from '../version.js';
import { decodeCapture, detectCaptureProtocol, type ConcreteProtocol } from './protocols.js';

/**
 * `meter-gateway parse FILE [--protocol auto|dsmr|sml|d0] [--all]`: decodes a capture through the
 * same decoders and store as the daemon and prints the report JSON of the last valid frame (with
 * --all: one line per frame). Rejected frames are listed on stderr. Exit 1 when no frame is valid.
 */
export function runParseCli(
  args: string[],
  usageError: (message: string) => never,
  clock: Clock = systemClock,
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { protocol: { type: 'string', default: 'auto' }, all: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    usageError((error as Error).message);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length > 0) usageError('parse needs exactly one FILE');
  const choice = parsed.values.protocol;
  if (!['auto', 'dsmr', 'sml', 'd0'].includes(choice)) usageError(`unknown protocol '${choice}'`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    process.stderr.write(`meter-gateway: cannot read ${file}: ${(error as Error).message}\n`);
    return 1;
  }
  const protocol = choice === 'auto' ? detectCaptureProtocol(bytes) : (choice as ConcreteProtocol);
  if (!protocol) {
    process.stderr.write(`meter-gateway: ${file}: no DSMR, SML or IEC 62056-21 frame recognized\n`);
    return 1;
  }
  const store = new ReadingStore({ staleAfterMs: Number.MAX_SAFE_INTEGER, meterInterface: 'FILE', clock });
  const system = {
    id: readSystemId(),
    model: 'meter-gateway',
    firmware: VERSION,
    bootId: '00000000-0000-0000-0000-000000000000',
    bootTime: clock.now(),
  };
  const reports: string[] = [];
  decodeCapture(bytes, protocol).forEach((result, index) => {
    if (!result.ok) {
      store.reject(result.error.kind);
      process.stderr.write(`frame ${index + 1}: rejected (${result.error.kind}): ${result.error.message}\n`);
      return;
    }
    store.ingest(result.reading);
    const report = buildReport({
      reading: store.latest,
      reportId: store.reportId,
      interval: undefined,
      meter: store.meter,
      system,
      convFactor: undefined,
      now: result.reading.receivedAt,
    });
    reports.push(parsed.values.all ? JSON.stringify(report) : JSON.stringify(report, null, 2));
  });
  store.close();
  if (reports.length === 0) return 1;
  process.stdout.write(`${parsed.values.all ? reports.join('\n') : reports[reports.length - 1]}\n`);
  return 0;
}
