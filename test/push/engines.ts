import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The time-series engines of the push tests, each started on 127.0.0.1 with a free port and a
 * temporary data folder: VictoriaMetrics single node (deduplication on, so a sample sent twice is
 * stored once) and InfluxDB 1.x.
 */
export interface Engine {
  base: string;
  port: number;
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

async function started(child: ChildProcess, base: string, path: string, port: number): Promise<Engine> {
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  try {
    await waitFor(`${base}${path} to answer`, async () => {
      if (child.exitCode !== null) throw new Error(`engine exited with ${child.exitCode}: ${output}`);
      try {
        return (await fetch(`${base}${path}`)).status < 500;
      } catch {
        return false;
      }
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { base, port, stop: () => stopChild(child) };
}

export async function startVictoriaMetrics(
  t: { after(fn: () => void): void },
  port?: number,
): Promise<Engine> {
  const dir = tempDir('push-vm-', t);
  const listen = port ?? (await freePort());
  const child = spawn(
    'victoria-metrics',
    [
      `-storageDataPath=${dir}`,
      `-httpListenAddr=127.0.0.1:${listen}`,
      '-retentionPeriod=100y',
      '-dedup.minScrapeInterval=1ms',
      '-influxSkipSingleField',
      '-search.latencyOffset=0s',
      '-search.disableCache',
      '-loggerLevel=ERROR',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return started(child, `http://127.0.0.1:${listen}`, '/health', listen);
}

/** Makes the samples written so far searchable (VictoriaMetrics buffers them for a few seconds). */
export async function flushVictoriaMetrics(engine: Engine): Promise<void> {
  await fetch(`${engine.base}/internal/force_flush`);
}

export async function vmQuery(
  engine: Engine,
  query: string,
  timeMs: number,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const url = `${engine.base}/api/v1/query?query=${encodeURIComponent(query)}&time=${timeMs / 1000}`;
  const body = (await (await fetch(url)).json()) as {
    data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  return body.data.result;
}

/** Raw samples of the series matching `match` (JSON lines of /api/v1/export). */
export async function vmExport(
  engine: Engine,
  match: string,
): Promise<Array<{ metric: Record<string, string>; values: number[]; timestamps: number[] }>> {
  const url = `${engine.base}/api/v1/export?match[]=${encodeURIComponent(match)}&start=0`;
  const text = await (await fetch(url)).text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(
      (line) =>
        JSON.parse(line) as { metric: Record<string, string>; values: number[]; timestamps: number[] },
    );
}

export async function startInfluxDb(t: { after(fn: () => void): void }): Promise<Engine> {
  const dir = tempDir('push-influx-', t);
  const [http, bind] = [await freePort(), await freePort()];
  const config = `${dir}/influxdb.conf`;
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    config,
    [
      `bind-address = "127.0.0.1:${bind}"`,
      'reporting-disabled = true',
      '[meta]',
      `  dir = "${dir}/meta"`,
      '[data]',
      `  dir = "${dir}/data"`,
      `  wal-dir = "${dir}/wal"`,
      '  query-log-enabled = false',
      '[http]',
      `  bind-address = "127.0.0.1:${http}"`,
      '  log-enabled = false',
      '[monitor]',
      '  store-enabled = false',
      '[continuous_queries]',
      '  enabled = false',
      '',
    ].join('\n'),
  );
  const child = spawn('influxd', ['-config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, `http://127.0.0.1:${http}`, '/ping', http);
}
