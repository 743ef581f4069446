import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeInfluxLines,
  encodeRemoteWrite,
  encodeVmImport,
  remoteWriteLibraries,
  writeRequestBytes,
} from '../../src/push/encoders.js';
import type { PushSample } from '../../src/push/series.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

test('remote_write: the WriteRequest of one sample, byte for byte (prompb field numbers, ms timestamp)', async () => {
  const bytes = await writeRequestBytes([{ name: 'a', labels: {}, value: 1, timestamp: 2 }]);
  // WriteRequest.timeseries (1, length 28) > TimeSeries.labels (1, length 13) > Label.name (1) "__name__",
  // Label.value (2) "a"; TimeSeries.samples (2, length 11) > Sample.value (1, fixed64 double 1.0),
  // Sample.timestamp (2, varint 2).
  const expected = hex(`0a1c 0a0d 0a08 ${ascii('__name__')} 1201 61 120b 09 000000000000f03f 1002`);
  assert.equal(bytes.toString('hex'), expected.toString('hex'));
});

test('remote_write: labels sorted by name with __name__ among them, samples of a series oldest first', async () => {
  const samples: PushSample[] = [
    { name: 'm', labels: { meter: 'main', b: 'x' }, value: 2, timestamp: 2000 },
    { name: 'm', labels: { b: 'x', meter: 'main' }, value: 1, timestamp: 1000 },
  ];
  const { WriteRequest } = await remoteWriteLibraries();
  const decoded = WriteRequest.toObject(WriteRequest.decode(await writeRequestBytes(samples)), {
    longs: Number,
  }) as {
    timeseries: Array<{
      labels: Array<{ name: string; value: string }>;
      samples: Array<{ value: number; timestamp: number }>;
    }>;
  };
  assert.equal(decoded.timeseries.length, 1);
  assert.deepEqual(
    decoded.timeseries[0]!.labels.map((l) => l.name),
    ['__name__', 'b', 'meter'],
  );
  assert.deepEqual(decoded.timeseries[0]!.samples, [
    { value: 1, timestamp: 1000 },
    { value: 2, timestamp: 2000 },
  ]);
});

test('remote_write: snappy block format body and the three required headers', async () => {
  const samples: PushSample[] = [{ name: 'a', labels: {}, value: 1, timestamp: 2 }];
  const encoded = await encodeRemoteWrite(samples);
  assert.deepEqual(encoded.headers, {
    'content-encoding': 'snappy',
    'content-type': 'application/x-protobuf',
    'x-prometheus-remote-write-version': '0.1.0',
  });
  const raw = await writeRequestBytes(samples);
  // Snappy block format (google/snappy format_description.txt): the uncompressed length as a
  // varint (30), then a literal of 30 bytes (tag (30 - 1) << 2 = 0x74) and the bytes themselves.
  assert.equal(encoded.body.toString('hex'), `1e74${raw.toString('hex')}`);
  const { snappy } = await remoteWriteLibraries();
  assert.deepEqual(Buffer.from(snappy.uncompress(encoded.body)), raw);
});

test('influx line protocol: escaped tags sorted by key, one float field, ms timestamps', () => {
  const encoded = encodeInfluxLines([
    {
      name: 'meter_x_total',
      labels: { site: 'Home 1', meter: 'main', gateway: 'A=B,C' },
      value: 3600000,
      timestamp: 1700000000000,
    },
    { name: 'p', labels: { meter: 'pv' }, value: 0.25, timestamp: 1700000900000 },
  ]);
  assert.equal(
    encoded.body.toString(),
    'meter_x_total,gateway=A\\=B\\,C,meter=main,site=Home\\ 1 value=3600000 1700000000000\n' +
      'p,meter=pv value=0.25 1700000900000\n',
  );
});

test('vm import: one JSON line per series with its values and timestamps', () => {
  const encoded = encodeVmImport([
    { name: 'm', labels: { meter: 'main' }, value: 1, timestamp: 1000 },
    { name: 'm', labels: { meter: 'pv' }, value: 5, timestamp: 1000 },
    { name: 'm', labels: { meter: 'main' }, value: 2, timestamp: 2000 },
  ]);
  const lines = encoded.body
    .toString()
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  assert.deepEqual(lines, [
    { metric: { __name__: 'm', meter: 'main' }, values: [1, 2], timestamps: [1000, 2000] },
    { metric: { __name__: 'm', meter: 'pv' }, values: [5], timestamps: [1000] },
  ]);
});

test('remote_write: the bytes written directly equal protobufjs encoding the same WriteRequest (labels sorted in code unit order, __name__ among them)', async () => {
  const { WriteRequest } = await remoteWriteLibraries();
  const samples: PushSample[] = [];
  for (let q = 0; q < 5; q++)
    for (const [name, tariff] of [
      ['meter_active_energy_import_joules_total', '1'],
      ['meter_active_energy_import_joules_total', '2'],
      ['meter_quarter_active_power_import_watts', undefined],
    ] as const)
      samples.push({
        name,
        // A capital label name sorts before `__name__` ('Z' < '_'); values in UTF-8 of several bytes.
        labels: {
          Zone: 'Süd €',
          site: '',
          gateway: 'ABCDEF012345',
          meter: 'main',
          role: 'grid',
          ...(tariff ? { tariff } : {}),
        },
        value: q === 0 ? 0 : 1e9 / (q + 3),
        timestamp: 1_790_000_000_000 + q * 900_000,
      });
  const direct = await writeRequestBytes(samples);
  const timeseries = new Map<
    string,
    { labels: Array<{ name: string; value: string }>; samples: unknown[] }
  >();
  for (const sample of samples) {
    const labels = [
      { name: '__name__', value: sample.name },
      ...Object.entries(sample.labels).map(([name, value]) => ({ name, value })),
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const key = JSON.stringify(labels);
    const entry = timeseries.get(key) ?? { labels, samples: [] };
    entry.samples.push({ value: sample.value, timestamp: sample.timestamp });
    timeseries.set(key, entry);
  }
  const reference = Buffer.from(
    WriteRequest.encode(WriteRequest.fromObject({ timeseries: [...timeseries.values()] })).finish(),
  );
  assert.equal(direct.toString('hex'), reference.toString('hex'));
  assert.equal(
    (timeseries.values().next().value as { labels: Array<{ name: string }> }).labels[0]!.name,
    'Zone',
  );
});

test('remote_write: a second batch does not change the body of the first (the reused buffer is not handed out)', async () => {
  const first = await encodeRemoteWrite([{ name: 'a', labels: { meter: 'main' }, value: 1, timestamp: 2 }]);
  const copy = Buffer.from(first.body);
  await encodeRemoteWrite([{ name: 'b', labels: { meter: 'pv' }, value: 7, timestamp: 9 }]);
  assert.deepEqual(first.body, copy);
});
