import { createRequire } from 'node:module';
import type { Type } from 'protobufjs';
import { groupSeries, type PushSample } from './series.js';
import type { PushKind } from './settings.js';

/**
 * The three wire formats of the push (docs/architecture.md#push), each a pure function of the
 * samples of one batch. The libraries are loaded on the first remote_write batch only.
 */

export interface EncodedBatch {
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * Prometheus remote write 1.0 (prometheus.io/docs/specs/prw/remote_write_spec): a WriteRequest
 * protobuf, snappy block format, POSTed with `Content-Encoding: snappy`, `Content-Type:
 * application/x-protobuf` and `X-Prometheus-Remote-Write-Version: 0.1.0`. Labels sorted by name,
 * `__name__` among them; timestamps in ms. Field numbers from prometheus/prompb remote.proto and
 * types.proto: WriteRequest.timeseries = 1; TimeSeries.labels = 1, samples = 2; Label.name = 1,
 * value = 2; Sample.value = 1 (double), timestamp = 2 (int64).
 */
export const REMOTE_WRITE_HEADERS = {
  'content-encoding': 'snappy',
  'content-type': 'application/x-protobuf',
  'x-prometheus-remote-write-version': '0.1.0',
} as const;

interface Snappy {
  compress(input: Uint8Array): Uint8Array;
  uncompress(input: Uint8Array): Uint8Array;
}

let writeRequest: Type | undefined;
let snappy: Snappy | undefined;

/** protobufjs (reflection, no generated code) and snappyjs, loaded once on first use. */
export async function remoteWriteLibraries(): Promise<{ WriteRequest: Type; snappy: Snappy }> {
  if (!writeRequest || !snappy) {
    const protobuf = (await import('protobufjs')).default;
    const root = new protobuf.Root();
    const label = new protobuf.Type('Label')
      .add(new protobuf.Field('name', 1, 'string'))
      .add(new protobuf.Field('value', 2, 'string'));
    const sample = new protobuf.Type('Sample')
      .add(new protobuf.Field('value', 1, 'double'))
      .add(new protobuf.Field('timestamp', 2, 'int64'));
    const series = new protobuf.Type('TimeSeries')
      .add(new protobuf.Field('labels', 1, 'Label', 'repeated'))
      .add(new protobuf.Field('samples', 2, 'Sample', 'repeated'));
    const request = new protobuf.Type('WriteRequest').add(
      new protobuf.Field('timeseries', 1, 'TimeSeries', 'repeated'),
    );
    root.define('prometheus').add(label).add(sample).add(series).add(request);
    root.resolveAll();
    writeRequest = request;
    // snappyjs is CommonJS without type declarations.
    snappy = createRequire(import.meta.url)('snappyjs') as Snappy;
  }
  return { WriteRequest: writeRequest, snappy };
}

function sortedLabels(name: string, labels: Record<string, string>): Array<{ name: string; value: string }> {
  return [
    { name: '__name__', value: name },
    ...Object.entries(labels).map(([n, value]) => ({ name: n, value })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The WriteRequest protobuf of the samples, before compression. */
export async function writeRequestBytes(samples: readonly PushSample[]): Promise<Buffer> {
  const { WriteRequest } = await remoteWriteLibraries();
  const timeseries = groupSeries(samples).map((series) => ({
    labels: sortedLabels(series.name, series.labels),
    samples: series.points.map((point) => ({ value: point.value, timestamp: point.timestamp })),
  }));
  return Buffer.from(WriteRequest.encode(WriteRequest.fromObject({ timeseries })).finish());
}

export async function encodeRemoteWrite(samples: readonly PushSample[]): Promise<EncodedBatch> {
  const { snappy: codec } = await remoteWriteLibraries();
  const body = Buffer.from(codec.compress(await writeRequestBytes(samples)));
  return { body, headers: { ...REMOTE_WRITE_HEADERS } };
}

// InfluxDB line protocol (docs.influxdata.com, line protocol reference): commas, spaces and equals
// signs in tag keys and values are escaped with a backslash; the measurement escapes commas and spaces.
const escapeTag = (text: string) => text.replace(/[\\,= ]/g, (c) => `\\${c}`);
const escapeMeasurement = (text: string) => text.replace(/[\\, ]/g, (c) => `\\${c}`);

/**
 * A float field value (a number without the `i` suffix is a float): the shortest decimal that reads
 * back as the same double; plain digits up to 1e21, far above any register in joules.
 */
function fieldNumber(value: number): string {
  return String(value);
}

/**
 * Influx line protocol with `precision=ms`: one line per sample, the series name as the
 * measurement, the labels as tags (sorted by key, the order InfluxDB recommends), one field `value`.
 * VictoriaMetrics' /write names the series `<measurement>_value` unless it runs with
 * -influxSkipSingleField (then `<measurement>`).
 */
export function encodeInfluxLines(samples: readonly PushSample[]): EncodedBatch {
  const lines = samples.map((sample) => {
    const tags = Object.keys(sample.labels)
      .sort()
      .filter((key) => sample.labels[key] !== '')
      .map((key) => `,${escapeTag(key)}=${escapeTag(sample.labels[key]!)}`)
      .join('');
    return `${escapeMeasurement(sample.name)}${tags} value=${fieldNumber(sample.value)} ${sample.timestamp}\n`;
  });
  return { body: Buffer.from(lines.join('')), headers: { 'content-type': 'text/plain; charset=utf-8' } };
}

/**
 * VictoriaMetrics JSON lines (docs.victoriametrics.com, /api/v1/import): one line per series,
 * `{"metric":{"__name__":...,labels},"values":[...],"timestamps":[ms...]}`.
 */
export function encodeVmImport(samples: readonly PushSample[]): EncodedBatch {
  const lines = groupSeries(samples).map(
    (series) =>
      `${JSON.stringify({
        metric: Object.fromEntries(sortedLabels(series.name, series.labels).map((l) => [l.name, l.value])),
        values: series.points.map((p) => p.value),
        timestamps: series.points.map((p) => p.timestamp),
      })}\n`,
  );
  return { body: Buffer.from(lines.join('')), headers: { 'content-type': 'application/x-ndjson' } };
}

export async function encodeBatch(kind: PushKind, samples: readonly PushSample[]): Promise<EncodedBatch> {
  if (kind === 'remote_write') return encodeRemoteWrite(samples);
  if (kind === 'influx_line') return encodeInfluxLines(samples);
  return encodeVmImport(samples);
}
