import { SourceError } from '../source-error.js';
import { onlyKnownParams } from '../source-params.js';

/** A dongle read over HTTP (docs/architecture.md#dongle-sources). */
export type DongleSource =
  | { kind: 'homewizard'; host: string; port: number; intervalMs: number; telegram: boolean }
  | { kind: 'shelly'; host: string; port: number; intervalMs: number };

/** `homewizard://host[:port]` (port 80) and `shelly://host[:port]`: `interval` seconds (0.1..3600). */
export function parseDongle(source: string, kind: DongleSource['kind']): DongleSource {
  let url: URL;
  try {
    url = new URL(source.replace(/^[a-z]+:/, 'http:'));
  } catch {
    throw new SourceError(source, `not a valid ${kind}://host[:port] URI`);
  }
  if (!url.hostname) throw new SourceError(source, `${kind} source needs a host (${kind}://host)`);
  onlyKnownParams(source, url.searchParams, kind === 'shelly' ? ['interval'] : ['interval', 'telegram']);
  const interval = Number(url.searchParams.get('interval') ?? '1');
  if (!Number.isFinite(interval) || interval < 0.1 || interval > 3600)
    throw new SourceError(source, 'interval must be seconds between polls (0.1..3600)');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const base = { host, port: Number(url.port || '80'), intervalMs: interval * 1000 };
  if (kind === 'shelly') return { kind, ...base };
  const telegram = url.searchParams.get('telegram') ?? '0';
  if (!['0', '1', 'true', 'false'].includes(telegram))
    throw new SourceError(source, 'telegram must be 1 (read /api/v1/telegram) or 0 (read /api/v1/data)');
  return { kind, ...base, telegram: telegram === '1' || telegram === 'true' };
}
