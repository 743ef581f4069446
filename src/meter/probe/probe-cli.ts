import { parseArgs } from 'node:util';
import { formatLine } from '../../serial/line-settings.js';
import { probeSerialPort, type ProbeResult } from './probe.js';

export interface ProbeCliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const STDIO: ProbeCliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const USAGE = 'usage: meter-gateway probe DEVICE [--key HEX] [--json]';

function describeFound(result: ProbeResult): string {
  const identity = result.identity ?? {};
  const meter = [identity.vendor, identity.model ?? identity.prefix, identity.id && `id ${identity.id}`]
    .filter(Boolean)
    .join(', ');
  const mode = result.d0Mode ? ` (${result.d0Mode === 'request' ? 'request mode, polled' : 'push'})` : '';
  const lines = [
    `found: ${result.meterProtocol}${mode} at ${result.line ? formatLine(result.line) : '?'}${meter ? `: ${meter}` : ''}`,
  ];
  if (result.encrypted)
    lines.push('telegrams are encrypted: set meter.encryption_key (32 hex digits from the grid operator)');
  lines.push(`meter.source: ${result.source}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `meter-gateway probe DEVICE [--key HEX] [--json]`: detects protocol and line settings of a serial
 * port and prints the `meter.source` URI to use. Progress goes to stderr, the result to stdout.
 * Exit codes: 0 found, 1 nothing recognized or port unusable, 2 usage error.
 */
export async function runProbeCli(args: string[], output: ProbeCliOutput = STDIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { key: { type: 'string' }, json: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    output.err(`meter-gateway: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [device, ...extra] = parsed.positionals;
  if (!device || extra.length > 0) {
    output.err(`meter-gateway: probe needs exactly one DEVICE\n${USAGE}\n`);
    return 2;
  }
  const options = parsed.values.key !== undefined ? { encryptionKey: parsed.values.key } : {};
  const result = await probeSerialPort(device, {
    ...options,
    onStep: (step, durationMs) =>
      output.err(`trying ${formatLine(step.line)} (${step.label}) for ${(durationMs / 1000).toFixed(1)} s\n`),
  });
  if (parsed.values.json) output.out(`${JSON.stringify(result, null, 2)}\n`);
  else if (result.status === 'OK') output.out(describeFound(result));
  else if (result.status === 'NOT CONNECTED')
    output.out(`NOT CONNECTED: cannot use ${device}: ${result.error}\n`);
  else
    output.out(
      `NOT RECOGNIZED: no DSMR, SML or IEC 62056-21 frame on ${device} after ${(result.elapsedMs / 1000).toFixed(1)} s\n`,
    );
  return result.status === 'OK' ? 0 : 1;
}
