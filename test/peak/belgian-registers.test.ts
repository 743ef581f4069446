// Belgian maximum demand registers (eMUCS P1): 1-0:1.4.0 current average demand, 1-0:1.6.0 the
// month's maximum with its time, 0-0:98.1.0 the monthly maxima, decoded by the DSMR decoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc16Arc } from '../../src/checksum/crc16.js';
import { decodeCapture } from '../../src/meter/protocols.js';
import type { Reading } from '../../src/reading/reading.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { MeterDemand } from '../../src/peak/meter-demand.js';
import { peakHistoryView } from '../../src/peak/view.js';

function decoded(bytes: Buffer): Reading {
  const reading = decodeCapture(bytes, 'dsmr').find((result) => result.ok)?.reading;
  assert.ok(reading, 'a valid telegram');
  return reading;
}

/** A telegram with the values of dsmr-reader issue 1764's Belgian meter, with its CRC. */
function belgianTelegram(): Buffer {
  const body = [
    '/FLU5\\253770234_A',
    '',
    '0-0:96.1.4(50217)',
    '0-0:1.0.0(221206221812W)',
    '1-0:1.8.1(000456.789*kWh)',
    '1-0:1.8.2(000321.456*kWh)',
    '0-0:96.14.0(0002)',
    '1-0:1.4.0(00.644*kW)',
    '1-0:1.6.0(221206221500W)(07.950*kW)',
    '0-0:98.1.0(0)()',
    '1-0:1.7.0(00.612*kW)',
    '1-0:2.7.0(00.000*kW)',
    '!',
  ].join('\r\n');
  const crc = crc16Arc(Buffer.from(body, 'latin1')).toString(16).toUpperCase().padStart(4, '0');
  return Buffer.from(`${body}${crc}\r\n`, 'latin1');
}

test('the Belgian telegram: 1.4.0 = 0.644 kW, 1.6.0 = 7.950 kW at 2022-12-06T22:15:00+01:00, an empty 98.1.0 is no error', () => {
  const reading = decoded(belgianTelegram());
  assert.equal(reading.values.get('1.4.0')?.value, 0.644);
  assert.equal(reading.values.get('1.6.0')?.value, 7.95);
  assert.deepEqual(reading.demand, { monthPeakAt: '2022-12-06T22:15:00+01:00', months: [] });
});

test('the eleven 98.1.0 entries of the corpus parse into month peaks with their local times', (t) => {
  if (!requireCorpus(t)) return;
  const reading = decoded(readFileSync(join(corpusDir, 'dsmr', 'edge', 'esphome_98_1_0_eleven_entries.txt')));
  const months = reading.demand?.months ?? [];
  assert.equal(months.length, 11);
  assert.deepEqual(months[0], {
    month: '2023-01-01T00:00:00+01:00',
    at: '2022-12-06T18:30:00+01:00',
    kw: 6.134,
  });
  // Summer time entries carry +02:00.
  assert.deepEqual(months[4], {
    month: '2023-05-01T00:00:00+02:00',
    at: '2023-04-16T09:45:00+02:00',
    kw: 4.395,
  });
  assert.deepEqual(months[10], {
    month: '2023-11-01T00:00:00+01:00',
    at: '2023-10-31T23:45:00+01:00',
    kw: 2.048,
  });
  const mean = months.reduce((sum, month) => sum + month.kw!, 0) / months.length;
  // The corpus's expectation (esphome's aggregate, truncated): 3.642 kW; the exact mean is 3.6427.
  assert.ok(Math.abs(mean - 3.642) < 0.001, `mean ${mean}`);
});

test('the registers are shown beside the computed values; a closed window off the meter’s 1.4.0 is a mismatch', (t) => {
  process.env.TZ = 'Europe/Brussels';
  if (!requireCorpus(t)) return;
  const demand = new MeterDemand();
  demand.update(decoded(readFileSync(join(corpusDir, 'dsmr', 'edge', 'esphome_98_1_0_eleven_entries.txt'))));
  assert.equal(demand.update(decoded(belgianTelegram())), undefined);
  const view = demand.view()!;
  assert.equal(view.average_kw, 0.644);
  assert.equal(view.month_peak_kw, 7.95);
  assert.equal(view.month_peak_at, '2022-12-06T22:15:00+01:00');
  // December 2022 from 1.6.0 (7.950), not from the 98.1.0 entry of the same month (6.134).
  assert.deepEqual(demand.monthOf('2022-12'), {
    month: '2022-12',
    kw: 7.95,
    at: '2022-12-06T22:15:00+01:00',
  });
  assert.deepEqual(demand.monthOf('2023-10'), {
    month: '2023-10',
    kw: 2.048,
    at: '2023-10-31T23:45:00+01:00',
  });
  demand.compare(0.66, 0.644);
  assert.equal(demand.view()!.mismatches, 0);
  demand.compare(0.9, 0.644);
  assert.equal(demand.view()!.mismatches, 1);
  // December 2022: the meter's 7.950 kW is the month's value; the computed 7.9 beside it.
  const history = peakHistoryView(
    [
      {
        record: {
          month: '2022-12',
          top: [{ at: Date.parse('2022-12-06T22:00:00+01:00'), kw: 7.9 }],
          meter: { at: Date.parse('2022-12-06T22:00:00+01:00'), kw: 7.95 },
        },
        source: 'meter',
        kw: 7.95,
      },
    ],
    13,
    900,
    (month) => demand.monthOf(month),
  );
  assert.deepEqual(history.months[0], {
    month: '2022-12',
    meter_kw: 7.95,
    meter_at: '2022-12-06T22:15:00+01:00',
    peak_kw: 7.95,
    peak_at: '2022-12-06T22:15:00+01:00',
    source: 'meter',
    computed_kw: 7.9,
    computed_at: '2022-12-06T22:15:00+01:00',
    top: [{ start: '2022-12-06T22:00:00+01:00', kw: 7.9 }],
  });
});

/**
 * A complete Fluvius telegram as a user logged it in home-assistant/core issue 107813 (2024-01-12),
 * with the meter's own CRC (CD6B): three months in 0-0:98.1.0, winter time throughout.
 */
const LOGGED_FLUVIUS_TELEGRAM = [
  '/FLU5\\253769484_A',
  '',
  '0-0:96.1.4(50217)',
  '0-0:96.1.1(3153414733313035303536363235)',
  '0-0:1.0.0(240112231805W)',
  '1-0:1.8.1(000116.372*kWh)',
  '1-0:1.8.2(000062.193*kWh)',
  '1-0:2.8.1(000112.716*kWh)',
  '1-0:2.8.2(000042.757*kWh)',
  '0-0:96.14.0(0002)',
  '1-0:1.4.0(00.027*kW)',
  '1-0:1.6.0(240107190000W)(02.485*kW)',
  '0-0:98.1.0(3)(1-0:1.6.0)(1-0:1.6.0)(231101000000W)(231031120000W)(01.747*kW)(231201000000W)(231109164500W)(03.260*kW)(240101000000W)(231224134500W)(01.981*kW)',
  '1-0:1.7.0(00.120*kW)',
  '1-0:2.7.0(00.000*kW)',
  '1-0:21.7.0(00.026*kW)',
  '1-0:41.7.0(00.061*kW)',
  '1-0:61.7.0(00.031*kW)',
  '1-0:22.7.0(00.000*kW)',
  '1-0:42.7.0(00.000*kW)',
  '1-0:62.7.0(00.000*kW)',
  '1-0:32.7.0(230.5*V)',
  '1-0:52.7.0(230.4*V)',
  '1-0:72.7.0(229.1*V)',
  '1-0:31.7.0(000.17*A)',
  '1-0:51.7.0(000.49*A)',
  '1-0:71.7.0(000.18*A)',
  '0-0:96.3.10(1)',
  '0-0:17.0.0(999.9*kW)',
  '1-0:31.4.0(999*A)',
  '0-0:96.13.0()',
  '0-1:24.1.0(003)',
  '0-1:96.1.1(37464C4F32313233303036333835)',
  '0-1:24.4.0(1)',
  '0-1:24.2.3(240112231646W)(00338.711*m3)',
  '!CD6B',
  '',
].join('\r\n');

test('a logged Fluvius telegram (its own CRC): 1.4.0, 1.6.0 with its time and three month peaks in local time', () => {
  const reading = decoded(Buffer.from(LOGGED_FLUVIUS_TELEGRAM, 'latin1'));
  assert.equal(reading.values.get('1.4.0')?.value, 0.027);
  assert.equal(reading.values.get('1.6.0')?.value, 2.485);
  assert.deepEqual(reading.demand, {
    monthPeakAt: '2024-01-07T19:00:00+01:00',
    months: [
      { month: '2023-11-01T00:00:00+01:00', at: '2023-10-31T12:00:00+01:00', kw: 1.747 },
      { month: '2023-12-01T00:00:00+01:00', at: '2023-11-09T16:45:00+01:00', kw: 3.26 },
      { month: '2024-01-01T00:00:00+01:00', at: '2023-12-24T13:45:00+01:00', kw: 1.981 },
    ],
  });
});
