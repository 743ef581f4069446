import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigStore } from '../../src/config/config-store.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

async function withServer(fn: (server: HttpTestContext) => Promise<void>): Promise<void> {
  const server = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

const DEFAULT_SETTINGS = {
  system: { name: 'meter-gateway', host_name: 'meter-gateway', protection: false, power_save: false },
  services: {
    cloud: {
      vendor: false,
      solar_manager: false,
      partner_a: false,
      partner_b: false,
      what_watt: false,
      mystrom: false,
      stromkonto: false,
    },
    local: { solar_manager: false },
    broadcast: true,
    other_energy_provider: false,
    report_interval: 30,
    log: false,
    meter_proxy: false,
    sd: { enable: false, frequency: 15 },
    modbus: { enable: false, port: 502, profile: 'whatwatt', direction: 'import_positive' },
    modbus_rtu: {
      enable: false,
      device: '',
      baud: 9600,
      parity: 'none',
      stop_bits: 1,
      unit_id: 1,
      profile: 'sdm630',
      direction: 'import_positive',
    },
    metrics: { enable: true, public: false, process: false },
    berry: { auto_run: false, run_delay: 300 },
    costs: {
      enable: false,
      currency: 'EUR',
      import: { mode: 'fixed', price: 0, t1: 0, t2: 0, time_of_use: '', fallback: 'fixed' },
      export: { mode: 'fixed', price: 0, t1: 0, t2: 0, time_of_use: '', fallback: 'fixed' },
      formula: { a: 1, markup: 0, vat: 0, tax: 0, zones: '', b: 1, fee: 0 },
      // The token is write-only: not shown.
      source: {
        name: 'none',
        zone: '',
        currency: '',
        rate: 0,
        own_charges: false,
        urls: {
          entsoe: 'https://web-api.tp.entsoe.eu/api',
          energy_charts: 'https://api.energy-charts.info',
          nordpool: 'https://dataportal-api.nordpoolgroup.com',
          awattar: 'https://api.awattar.de',
          energyzero: 'https://api.energyzero.nl',
          tibber: 'https://api.tibber.com/v1-beta/gql',
        },
      },
      standing_charge: 0,
    },
    peak_guard: {
      enabled: false,
      model: 'be_quarter',
      window_s: 900,
      meter: 'main',
      limit_kw: 4,
      mode: 'fixed',
      warn_margin_kw: 0.3,
      margin_kw: 0.1,
      floor_kw: 2.5,
      arm_after_s: 60,
      step_delay_s: 30,
      hysteresis_kw: 0.3,
      hold_s: 60,
      on_stale: 'hold',
      eur_per_kw_year: 40.4,
      top_n: 0,
      aggregation: 'model',
      steps: [
        { to_kw: 2, price: 312.5 },
        { to_kw: 5, price: 375 },
        { to_kw: 10, price: 437.5 },
        { to_kw: 15, price: 500 },
        { to_kw: 20, price: 562.5 },
        { to_kw: 25, price: 625 },
      ],
      filter: { hours_from: 0, hours_to: 24, weekdays_only: false, months: [] },
      stages: [],
    },
    push: { targets: [], mqtt: { enable: false, topic: 'meter-gateway/${sys.id}', site: '' } },
    export_limiter: {
      enabled: false,
      meter: 'main',
      inverters: [],
      mode: 'zero_export',
      target_w: 0,
      deadband_w: 50,
      export_threshold: 0,
      safe_pct: 0,
      stale_after_s: 30,
      revert_s: 120,
      refresh_s: 60,
    },
    emulate: { homewizard: { enable: false, meter: 'main' } },
  },
};

function fieldsOf(body: { details: { fields: Array<{ field: string }> } }): string[] {
  return body.details.fields.map((issue) => issue.field).sort();
}

test('GET returns the spec settings tree without the password', () =>
  withServer(async ({ baseUrl, ctx }) => {
    assert.ok(ctx.config.apply(new Map([['system.password', 'hidden-pw']])).ok);
    const reply = await send(baseUrl, 'GET', '/api/v1/settings');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json(), DEFAULT_SETTINGS);
    assert.doesNotMatch(reply.text, /hidden-pw|password/);
  }));

test('PUT merges a partial object, persists it, emits change and answers the updated settings', () =>
  withServer(async ({ baseUrl, ctx, stateDir }) => {
    const changes: string[][] = [];
    ctx.config.on('change', (paths) => changes.push([...paths]));
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: { name: 'Kitchen' },
      services: { report_interval: 60, modbus: { enable: true } },
    });
    assert.equal(reply.status, 200);
    const body = reply.json();
    assert.equal(body.system.name, 'Kitchen');
    assert.equal(body.system.host_name, 'meter-gateway');
    assert.equal(body.services.report_interval, 60);
    assert.deepEqual(body.services.modbus, {
      enable: true,
      port: 502,
      profile: 'whatwatt',
      direction: 'import_positive',
    });
    assert.deepEqual(changes, [['system.name', 'services.report_interval', 'services.modbus.enable']]);
    assert.deepEqual(JSON.parse(readFileSync(join(stateDir, 'settings.json'), 'utf8')), {
      system: { name: 'Kitchen' },
      services: { report_interval: 60, modbus: { enable: true } },
    });
    const reloaded = ConfigStore.load({ env: {}, stateDir });
    assert.equal(reloaded.config.services.report_interval, 60);
  }));

/** What POST makes of omitted fields, as the device documents: false, "", numbers their default. */
const POST_RESET = {
  system: { name: '', host_name: '', protection: false, power_save: false },
  services: {
    ...DEFAULT_SETTINGS.services,
    broadcast: false,
    costs: {
      ...DEFAULT_SETTINGS.services.costs,
      currency: '',
      // An empty base URL: the source's public address.
      source: {
        ...DEFAULT_SETTINGS.services.costs.source,
        urls: { entsoe: '', energy_charts: '', nordpool: '', awattar: '', energyzero: '', tibber: '' },
      },
    },
    // An empty meter id: the guard watches the primary.
    peak_guard: { ...DEFAULT_SETTINGS.services.peak_guard, meter: '' },
    // An empty topic: the quarter records use the default base topic.
    push: { targets: [], mqtt: { enable: false, topic: '', site: '' } },
    // The same for the export limiter: it closes its loop on the primary.
    export_limiter: { ...DEFAULT_SETTINGS.services.export_limiter, meter: '' },
    metrics: { enable: false, public: false, process: false },
  },
};

test('POST replaces: missing fields become false / "" (numbers their default), the password stays unless given', () =>
  withServer(async ({ baseUrl, ctx }) => {
    assert.equal(
      (
        await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
          system: { name: 'Old', password: 'keep-me' },
          services: { log: true },
        })
      ).status,
      200,
    );
    const reply = await sendJsonBody(baseUrl, 'POST', '/api/v1/settings', { system: { host_name: 'fresh' } });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json(), { ...POST_RESET, system: { ...POST_RESET.system, host_name: 'fresh' } });
    assert.equal(ctx.config.config.system.password, 'keep-me');
    await sendJsonBody(baseUrl, 'POST', '/api/v1/settings', { system: { password: '' } });
    assert.equal(ctx.config.config.system.password, '');
  }));

test('every violated field is listed: wrong types, out of range, non-integer, too long', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const before = ctx.config.config;
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: {
        name: 'n'.repeat(32),
        host_name: 'h'.repeat(31),
        protection: 'true',
        password: 'p'.repeat(32),
      },
      services: {
        report_interval: 3601,
        sd: { frequency: 0, enable: 1 },
        modbus: { port: '502' },
        berry: { run_delay: 59.5 },
        broadcast: null,
      },
    });
    assert.equal(reply.status, 400);
    const body = reply.json();
    assert.equal(body.error, 'validation_failed');
    assert.deepEqual(fieldsOf(body), [
      'services.berry.run_delay',
      'services.broadcast',
      'services.modbus.port',
      'services.report_interval',
      'services.sd.enable',
      'services.sd.frequency',
      'system.name',
      'system.password',
      'system.protection',
    ]);
    const byField = new Map<string, Record<string, unknown>>(
      body.details.fields.map((issue: Record<string, unknown>) => [issue.field, issue]),
    );
    assert.deepEqual(byField.get('services.report_interval'), {
      field: 'services.report_interval',
      message: 'must be an integer in 1..3600',
      // The rule's key and arguments, for the web page's languages.
      key: 'rule.integer_range',
      args: { min: 1, max: 3600 },
      value: 3601,
    });
    assert.equal(body.key, 'error.invalid_settings');
    assert.deepEqual(body.args, { fields: body.message.slice('invalid settings: '.length) });
    assert.equal(byField.get('services.modbus.port')?.value, '502');
    assert.equal('value' in byField.get('system.password')!, false, 'the password is never echoed');
    assert.doesNotMatch(reply.text, /pppppppp/);
    assert.equal(ctx.config.config, before, 'nothing was applied');
  }));

test('boundaries of the spec constraints are accepted', () =>
  withServer(async ({ baseUrl }) => {
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: { name: 'n'.repeat(31), password: 'p'.repeat(31) },
      services: {
        report_interval: 3600,
        sd: { frequency: 1440 },
        modbus: { port: 65535 },
        berry: { run_delay: 60 },
      },
    });
    assert.equal(reply.status, 200, reply.text);
    const low = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: {
        report_interval: 1,
        sd: { frequency: 1 },
        modbus: { port: 1 },
        berry: { run_delay: 86400 },
      },
    });
    assert.equal(low.status, 200, low.text);
  }));

test('additional properties are accepted and reported in details.ignored; a non-object section or body is 400', () =>
  withServer(async ({ baseUrl, ctx, logLines }) => {
    const extra = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      vendor_field: 1,
      system: { name: 'With extras', colour: 'blue' },
      services: { future: { x: 1 } },
    });
    assert.equal(extra.status, 200);
    assert.equal(extra.json().system.colour, undefined);
    assert.deepEqual(extra.json().details, { ignored: ['vendor_field', 'system.colour', 'services.future'] });
    assert.ok(logLines.some((line) => line.includes('ignored unknown fields vendor_field')));
    assert.equal(ctx.config.config.system.name, 'With extras');
    const clean = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { system: { name: 'Clean' } });
    assert.equal(clean.json().details, undefined, 'no details when nothing was ignored');

    const section = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: 'x',
      services: { sd: [1], log: true },
    });
    assert.equal(section.status, 400);
    assert.deepEqual(fieldsOf(section.json()), ['services.sd', 'system']);
    assert.equal(ctx.config.config.services.log, false, 'valid parts of a rejected body are not applied');

    for (const body of ['[]', '"text"', '42', 'null']) {
      const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', body);
      assert.equal(reply.status, 400, body);
      assert.equal(reply.json().error, 'validation_failed');
    }
  }));

test('the password is in no response and no log line, even when rejected', () =>
  withServer(async ({ baseUrl, logLines }) => {
    const secret = 'Very-Secret-Value-123';
    await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { system: { password: secret } });
    const rejected = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: { password: `${secret}${'x'.repeat(20)}` },
    });
    assert.equal(rejected.status, 400);
    const replies = [
      rejected,
      await send(baseUrl, 'GET', '/api/v1/settings'),
      await send(baseUrl, 'GET', '/api/v1/system'),
    ];
    for (const reply of replies) assert.doesNotMatch(reply.text, /Very-Secret/);
    for (const line of logLines) assert.doesNotMatch(line, /Very-Secret/);
  }));

test("the device's cloud names write and show the same settings as this project's names", () =>
  withServer(async ({ baseUrl, ctx }) => {
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: { cloud: { what_watt: true, mystrom: true, stromkonto: false, solar_manager: true } },
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json().services.cloud, {
      vendor: true,
      what_watt: true,
      partner_a: true,
      mystrom: true,
      partner_b: false,
      stromkonto: false,
      solar_manager: true,
    });
    assert.equal(ctx.config.config.services.cloud.vendor, true);
    assert.equal(reply.json().details, undefined);
    const conflict = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: { cloud: { what_watt: false, vendor: true } },
    });
    assert.equal(conflict.status, 400);
    assert.deepEqual(fieldsOf(conflict.json()), ['services.cloud.what_watt']);
  }));

test('system.host_name accepts the device default form with underscores', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      system: { host_name: 'whatwatt_ABC123' },
    });
    assert.equal(reply.status, 200);
    assert.equal(ctx.config.config.system.host_name, 'whatwatt_ABC123');
    for (const bad of ['_leading', 'trailing_', 'with space', 'dot.ted']) {
      const refused = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { system: { host_name: bad } });
      assert.equal(refused.status, 400, bad);
    }
  }));

test('the Modbus profiles and the RTU line are settings: validated, applied, kept by POST', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const bad = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: {
        modbus: { profile: 'sdm999' },
        modbus_rtu: { unit_id: 0, parity: 'mark', stop_bits: 3, baud: 100, direction: 'up' },
      },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(fieldsOf(bad.json()), [
      'services.modbus.profile',
      'services.modbus_rtu.baud',
      'services.modbus_rtu.direction',
      'services.modbus_rtu.parity',
      'services.modbus_rtu.stop_bits',
      'services.modbus_rtu.unit_id',
    ]);
    const good = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: {
        modbus: { profile: 'sunspec' },
        modbus_rtu: { device: '/dev/ttyUSB0', unit_id: 11, parity: 'even', profile: 'dtsu666' },
      },
    });
    assert.equal(good.status, 200, good.text);
    assert.equal(ctx.config.config.services.modbus.profile, 'sunspec');
    assert.equal(good.json().services.modbus_rtu.unit_id, 11);
    const replaced = await sendJsonBody(baseUrl, 'POST', '/api/v1/settings', { system: { name: 'x' } });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.json().services.modbus.profile, 'whatwatt', 'a choice returns to its default');
    assert.equal(replaced.json().services.modbus_rtu.device, '');
  }));
