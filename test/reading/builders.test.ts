import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLivePayload } from '../../src/reading/live.js';
import type { MeterState, SystemFacts } from '../../src/reading/meter-state.js';
import { QUANTITIES } from '../../src/reading/quantities.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { buildReport } from '../../src/reading/report.js';
import { withDerivedValues } from '../../src/reading/derive.js';
import { buildTemplateVariables } from '../../src/reading/template-variables.js';
import { dateTimes } from '../../src/reading/time-format.js';

// Local time matters for date_time, Date and Time: pin the zone (Node re-reads TZ on change).
process.env.TZ = 'Europe/Amsterdam';

const receivedAt = Date.UTC(2026, 10, 21, 12, 30, 5); // 13:30:05 CET
const system: SystemFacts = {
  id: 'ECC9FF5C7F14',
  model: 'meter-gateway',
  firmware: '1.2.3',
  bootId: '6f1c1f4e-0000-4000-8000-000000000001',
  bootTime: receivedAt - 7_200_000,
};
const meter: MeterState = {
  status: 'OK',
  interface: 'P1',
  protocol: 'DSMR',
  identity: {
    prefix: 'ISK',
    vendor: 'Iskraemeco',
    model: 'MT382-1000',
    id: 'E0012345',
    protocolVersion: '50',
  },
};

/** Every table quantity with a distinct value: 1.7.0 -> 1.007, 32.7.0 -> 32.007 ... */
function fullReading(): Reading {
  const entries: Record<string, [number, string]> = {};
  for (const q of QUANTITIES) {
    const [c, d, e] = q.obis.split('.') as [string, string, string];
    entries[q.obis] = [Number(`${c}.${d.padStart(3, '0')}${e === '0' ? '' : e}`), q.unit];
  }
  return {
    receivedAt,
    meterTime: '2026-11-21T13:30:00+01:00',
    protocol: 'DSMR',
    identity: meter.identity,
    values: valuesOf(entries),
    tariff: 2,
    mbus: [
      {
        bus: 1,
        meterId: 'G0099',
        deviceType: 3,
        dateTime: '2026-11-21T13:25:00+01:00',
        cumulative: 1234.567,
        unit: 'm3',
      },
    ],
  };
}

test('report of a reading with every quantity: exact bytes', () => {
  const report = buildReport({
    reading: fullReading(),
    reportId: 7,
    interval: 1.002,
    meter,
    system,
    convFactor: 1,
    now: receivedAt,
  });
  const json = JSON.stringify(report);
  const expectedReport =
    '{"id":7,"interval":1.002,"tariff":2,"date_time":"2026-11-21T13:30:00+01:00","date_time_local":"2026-11-21T13:30:00+01:00","date_time_utc":"2026-11-21T12:30:00Z",' +
    '"instantaneous_power":{"active":{"positive":{"total":1.007,"l1":21.007,"l2":41.007,"l3":61.007},"negative":{"total":2.007,"l1":22.007,"l2":42.007,"l3":62.007}},' +
    '"reactive":{"positive":{"total":3.007,"l1":23.007,"l2":43.007,"l3":63.007},"negative":{"total":4.007,"l1":24.007,"l2":44.007,"l3":64.007}},"apparent":{"total":9.007}},' +
    '"voltage":{"l1":32.007,"l2":52.007,"l3":72.007},"current":{"l1":31.007,"l2":51.007,"l3":71.007},"power_factor":13.007,"frequency":14.007,' +
    '"energy":{"active":{"positive":{"total":1.008,"t1":1.0081,"t2":1.0082},"negative":{"total":2.008,"t1":2.0081,"t2":2.0082}},' +
    '"reactive":{"positive":{"total":3.008,"t1":3.0081,"t2":3.0082},"negative":{"total":4.008,"t1":4.0081,"t2":4.0082},' +
    '"imported":{"inductive":{"total":5.008,"t1":5.0081,"t2":5.0082},"capacitive":{"total":6.008,"t1":6.0081,"t2":6.0082}},' +
    '"exported":{"inductive":{"total":7.008,"t1":7.0081,"t2":7.0082},"capacitive":{"total":8.008,"t1":8.0081,"t2":8.0082}}}},' +
    '"max_demand":{"active":{"positive":{"total":1.006,"t1":1.0061,"t2":1.0062},"negative":{"total":2.006,"t1":2.0061,"t2":2.0062}}},' +
    '"conv_factor":1,"volume":[{"bus":1,"meter_id":"G0099","date_time":"2026-11-21T13:25:00+01:00","cumulative":1234.567}]}';
  const expected =
    `{"report":${expectedReport},` +
    '"meter":{"status":"OK","interface":"P1","protocol":"DSMR","protocol_version":"50","id":"E0012345","model":"MT382-1000","vendor":"Iskraemeco","prefix":"ISK"},' +
    '"system":{"id":"ECC9FF5C7F14","date_time":"2026-11-21T13:30:05+01:00","date_time_local":"2026-11-21T13:30:05+01:00","date_time_utc":"2026-11-21T12:30:05Z","boot_id":"6f1c1f4e-0000-4000-8000-000000000001","time_since_boot":7200}}';
  assert.equal(json, expected);
});

test('report of a sparse reading: absent fields stay absent, total = t1 + t2 when only tariffs arrive', () => {
  const sparse: Reading = {
    receivedAt,
    protocol: 'DSMR',
    identity: {},
    values: valuesOf({
      '1.8.1': [100.5, 'kWh'],
      '1.8.2': [200.25, 'kWh'],
      '1.7.0': [0.25, 'kW'],
      '32.7.0': [229.9, 'V'],
    }),
    mbus: [],
  };
  const report = buildReport({
    reading: withDerivedValues(sparse),
    reportId: 1,
    interval: undefined,
    meter: { status: 'OK', interface: 'P1', identity: {} },
    system,
    convFactor: undefined,
    now: receivedAt,
  });
  assert.equal(
    JSON.stringify(report.report),
    '{"id":1,"date_time":"2026-11-21T13:30:05+01:00","date_time_local":"2026-11-21T13:30:05+01:00","date_time_utc":"2026-11-21T12:30:05Z",' +
      '"instantaneous_power":{"active":{"positive":{"total":0.25}}},"voltage":{"l1":229.9},' +
      '"energy":{"active":{"positive":{"total":300.75,"t1":100.5,"t2":200.25}}}}',
  );
});

test('report before the first reading: meter and system objects, no measurements', () => {
  const report = buildReport({
    reading: undefined,
    reportId: 0,
    interval: undefined,
    meter: { status: 'NO DATA', interface: 'SIMULATOR', identity: {} },
    system,
    convFactor: 1,
    now: receivedAt,
  });
  assert.equal(JSON.stringify(report.report), '{"id":0}');
  assert.equal(JSON.stringify(report.meter), '{"status":"NO DATA","interface":"SIMULATOR"}');
});

test('live payload: flat keys of docs/architecture.md#live-payload, exact bytes', () => {
  const payload = buildLivePayload(fullReading(), system.bootTime);
  assert.equal(
    JSON.stringify(payload),
    '{"P_In":1.007,"P_P1_In":21.007,"P_P2_In":41.007,"P_P3_In":61.007,"P_Out":2.007,"P_P1_Out":22.007,"P_P2_Out":42.007,"P_P3_Out":62.007,' +
      '"rP_In":3.007,"rP_P1_In":23.007,"rP_P2_In":43.007,"rP_P3_In":63.007,"rP_Out":4.007,"rP_P1_Out":24.007,"rP_P2_Out":44.007,"rP_P3_Out":64.007,' +
      '"V_P1":32.007,"V_P2":52.007,"V_P3":72.007,"I_P1":31.007,"I_P2":51.007,"I_P3":71.007,"PF":13.007,' +
      '"E_In":1.008,"E_In_T1":1.0081,"E_In_T2":1.0082,"E_Out":2.008,"E_Out_T1":2.0081,"E_Out_T2":2.0082,' +
      '"rE_In":3.008,"rE_Out":4.008,"rEii":5.008,"rEic":6.008,"rEei":7.008,"rEec":8.008,' +
      '"P_P_In":1.006,"P_P_In_T1":1.0061,"P_P_In_T2":1.0062,' +
      '"T":2,"Vol":[{"Bus":1,"M_ID":"G0099","DT":"2026-11-21T13:25:00+01:00","Cum":1234.567}],"Date":"2026-11-21","Time":"13:30:05","Uptime":2}',
  );
});

test('template variables: OBIS names, aliases, signed currents, null for unsent numbers', () => {
  const reading: Reading = {
    receivedAt,
    protocol: 'DSMR',
    identity: { id: 'E1' },
    values: valuesOf({
      '1.8.0': [10, 'kWh'],
      '21.7.0': [0, 'kW'],
      '22.7.0': [1.5, 'kW'],
      '31.7.0': [6.5, 'A'],
      '51.7.0': [2, 'A'],
    }),
    tariff: 1,
    mbus: [{ bus: 1, cumulative: 5.5 }],
  };
  const vars = buildTemplateVariables({
    reading,
    meter,
    systemName: 'meter-gateway',
    system,
    convFactor: 1,
    wifi: { ssid: 'home' },
    now: receivedAt,
  });
  assert.equal(vars.get('1_8_0'), 10);
  assert.equal(vars.get('energy.in'), 10);
  assert.equal(vars.get('2_8_0'), null);
  assert.equal(vars.get('power.out'), null);
  assert.equal(vars.get('s31_7_0'), -6.5, 'phase 1 exports: negative signed current');
  assert.equal(vars.get('s51_7_0'), 2);
  assert.equal(vars.get('s71_7_0'), null);
  assert.equal(vars.get('tariff'), 1);
  assert.equal(vars.get('timestamp'), Math.floor(receivedAt / 1000));
  assert.equal(vars.get('sys.id'), 'ECC9FF5C7F14');
  assert.equal(vars.get('sys.name'), 'meter-gateway');
  assert.equal(vars.get('meter.id'), 'E0012345');
  assert.equal(vars.get('wifi.ssid'), 'home');
  assert.equal(vars.get('vol[0].cumulative'), 5.5);
  assert.equal(vars.get('vol[0].meter_id'), null);
  assert.equal(vars.has('nonexistent'), false);
});

test('derived values: signed SML power splits into directions, sent values win', () => {
  const derived = withDerivedValues({
    receivedAt,
    protocol: 'SML',
    identity: {},
    values: valuesOf({ '16.7.0': [-1.5, 'kW'], '36.7.0': [0.5, 'kW'], '21.7.0': [0.7, 'kW'] }),
    mbus: [],
  }).values;
  assert.deepEqual(derived.get('1.7.0'), { value: 0, unit: 'kW' });
  assert.deepEqual(derived.get('2.7.0'), { value: 1.5, unit: 'kW' });
  assert.deepEqual(derived.get('21.7.0'), { value: 0.7, unit: 'kW' }, 'a value the meter sent is kept');
  assert.equal(derived.has('22.7.0'), false);
});

test('date_time_local carries the UTC offset, as the device documents it; winter and summer time', () => {
  // The device: "Report timestamp in local time zone with timezone offset" (2025-10-07T14:26:10+02:00).
  const winter = dateTimes(Date.UTC(2026, 0, 15, 11, 0, 0));
  assert.equal(winter.date_time_local, '2026-01-15T12:00:00+01:00');
  const summer = dateTimes(Date.UTC(2026, 6, 15, 11, 0, 0));
  assert.deepEqual(summer, {
    date_time: '2026-07-15T13:00:00+02:00',
    date_time_local: '2026-07-15T13:00:00+02:00',
    date_time_utc: '2026-07-15T11:00:00Z',
  });
  assert.equal(Date.parse(summer.date_time_local), Date.parse(summer.date_time_utc));
});
