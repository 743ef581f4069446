import { createRequire } from 'node:module';
import type { Type } from 'protobufjs';
import { groupSeries, sortedNames, type PushSample } from './series.js';
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

/** snappyjs, loaded with the first remote_write batch. */
function snappyCodec(): Promise<Snappy> {
  // snappyjs is CommonJS without type declarations.
  snappy ??= createRequire(import.meta.url)('snappyjs') as Snappy;
  return Promise.resolve(snappy);
}

/**
 * The WriteRequest schema for protobufjs (reflection, no generated code) and snappyjs: the
 * reference the tests decode a body with; the push itself writes the bytes directly.
 */
export async function remoteWriteLibraries(): Promise<{ WriteRequest: Type; snappy: Snappy }> {
  if (!writeRequest) {
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
  }
  return { WriteRequest: writeRequest, snappy: await snappyCodec() };
}

function sortedLabels(name: string, labels: Record<string, string>): Array<{ name: string; value: string }> {
  const sorted: Array<{ name: string; value: string }> = [];
  let named = false;
  for (const label of sortedNames(labels)) {
    if (!named && label > '__name__') {
      sorted.push({ name: '__name__', value: name });
      named = true;
    }
    sorted.push({ name: label, value: labels[label]! });
  }
  if (!named) sorted.push({ name: '__name__', value: name });
  return sorted;
}

/** Bytes of `value` as a protobuf varint (base 128, low group first); exact up to 2^53. */
function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size += 1;
  }
  return size;
}

/**
 * A growing byte buffer kept between batches: the WriteRequest of every batch is written into the
 * same memory (docs/architecture.md#push), so a long backlog allocates no protobuf objects per
 * label and sample, only what the request itself needs.
 */
class ProtoWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  length = 0;

  reset(size: number): void {
    if (size > this.buffer.length) this.buffer = Buffer.allocUnsafe(Math.max(size, this.buffer.length * 2));
    this.length = 0;
  }

  byte(value: number): void {
    this.buffer[this.length++] = value;
  }

  varint(value: number): void {
    while (value >= 128) {
      this.buffer[this.length++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buffer[this.length++] = value;
  }

  double(value: number): void {
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  utf8(text: string, bytes: number): void {
    this.buffer.write(text, this.length, bytes, 'utf8');
    this.length += bytes;
  }

  /** The written bytes (a view of the kept buffer, valid until the next reset). */
  view(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

const writer = new ProtoWriter();

// Protobuf wire tags (field number << 3 | wire type): 2 = length-delimited, 1 = 64-bit, 0 = varint.
const TAG_FIELD1_LEN = 0x0a;
const TAG_FIELD2_LEN = 0x12;
const TAG_FIELD1_FIXED64 = 0x09;
const TAG_FIELD2_VARINT = 0x10;

/** The size of a length-delimited field (tag, length, body). */
const fieldSize = (body: number) => 1 + varintSize(body) + body;

/**
 * The WriteRequest of the samples, before compression, written field by field (every field
 * present, timestamps as varints: the bytes protobufjs writes for the same message). The returned
 * bytes are a view of a buffer the next call overwrites: compress or copy them first.
 */
function writeRequestView(samples: readonly PushSample[]): Buffer {
  const series = groupSeries(samples).map((entry) => {
    const labels = sortedLabels(entry.name, entry.labels).map((label) => {
      const name = Buffer.byteLength(label.name);
      const value = Buffer.byteLength(label.value);
      return { ...label, nameBytes: name, valueBytes: value, size: fieldSize(name) + fieldSize(value) };
    });
    let size = 0;
    for (const label of labels) size += fieldSize(label.size);
    for (const point of entry.points) size += fieldSize(1 + 8 + 1 + varintSize(point.timestamp));
    return { labels, points: entry.points, size };
  });
  let total = 0;
  for (const entry of series) total += fieldSize(entry.size);
  writer.reset(total);
  for (const entry of series) {
    writer.byte(TAG_FIELD1_LEN);
    writer.varint(entry.size);
    for (const label of entry.labels) {
      writer.byte(TAG_FIELD1_LEN);
      writer.varint(label.size);
      writer.byte(TAG_FIELD1_LEN);
      writer.varint(label.nameBytes);
      writer.utf8(label.name, label.nameBytes);
      writer.byte(TAG_FIELD2_LEN);
      writer.varint(label.valueBytes);
      writer.utf8(label.value, label.valueBytes);
    }
    for (const point of entry.points) {
      writer.byte(TAG_FIELD2_LEN);
      writer.varint(1 + 8 + 1 + varintSize(point.timestamp));
      writer.byte(TAG_FIELD1_FIXED64);
      writer.double(point.value);
      writer.byte(TAG_FIELD2_VARINT);
      writer.varint(point.timestamp);
    }
  }
  return writer.view();
}

/** The WriteRequest protobuf of the samples, before compression (a copy of its own). */
export function writeRequestBytes(samples: readonly PushSample[]): Promise<Buffer> {
  return Promise.resolve(Buffer.from(writeRequestView(samples)));
}

export async function encodeRemoteWrite(samples: readonly PushSample[]): Promise<EncodedBatch> {
  const codec = await snappyCodec();
  // snappyjs answers a Buffer for a Buffer: the compressed body is the one copy kept for the request.
  const body = codec.compress(writeRequestView(samples));
  return {
    body: Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.length),
    headers: { ...REMOTE_WRITE_HEADERS },
  };
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
    const tags = sortedNames(sample.labels)
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
