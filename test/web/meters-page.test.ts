// The Meters page in headless Chromium on the real daemon: the overview of every meter and the
// energy-flow card, fed by GET /api/v1/meters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import {
  corpusDir,
  requireCommand,
  requireCorpus,
  requirePeer,
  testModuleCommand,
} from '../helpers/environment.js';
import { vethNamespaces } from '../helpers/netns.js';
import { freePort } from '../helpers/ports.js';
import { ptyWithMeter } from '../meter/probe/pty-meter.js';
import { FakeMeter } from '../meter/transport/fake-meter.js';
import { waitFor } from '../helpers/wait.js';
import { setUp } from './page-rig.js';

const METERS = [
  { id: 'pv', name: 'PV inverter', role: 'pv', source: 'simulator' },
  { id: 'ev', name: 'Wallbox', role: 'ev', source: 'simulator' },
  { id: 'house', name: 'House', role: 'consumer', expression: 'main - ev' },
];

test('the Meters page lists every meter with its status and power and shows the energy flow', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t, { METER_GATEWAY_METERS: JSON.stringify(METERS) });
  await page.goto(`${daemon.baseUrl}/#/meters`);
  const rows = await waitFor(
    'four meters OK on the page',
    async () =>
      page.locator('#meters-table tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          id: tr.getAttribute('data-meter'),
          cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
        })),
      ),
    (found) => found.length === 4 && found.every((row) => row.cells[2] === 'OK'),
  );
  assert.deepEqual(
    rows.map((row) => [row.id, row.cells[0], row.cells[1]]),
    [
      ['main', 'Main meter', 'Grid'],
      ['pv', 'PV inverter', 'PV'],
      ['ev', 'Wallbox', 'EV'],
      ['house', 'House (virtual)', 'Consumer'],
    ],
  );
  for (const row of rows) assert.match(row.cells[3] ?? '', /^-?\d+\.\d{3}$/, `${row.id} power`);
  const flow = await waitFor(
    'the energy-flow card',
    () =>
      page
        .locator('#energy-flow dd')
        .evaluateAll((dds) =>
          Object.fromEntries(
            dds.map((dd) => [dd.getAttribute('data-flow'), Number.parseFloat(dd.textContent ?? '')]),
          ),
        ),
    (found) => ['grid', 'pv', 'ev', 'house'].every((key) => Number.isFinite(found[key])),
  );
  assert.equal(await page.locator('#energy-flow').isVisible(), true);
  // The house is the balance of the others, all from one snapshot of the meters.
  assert.ok(Math.abs(flow.house! - (flow.grid! + flow.pv! - flow.ev!)) < 0.0025, JSON.stringify(flow));

  // The history page's meter chooser: every meter; choosing one asks its history and CSV.
  await page.goto(`${daemon.baseUrl}/#/history`);
  const chooser = page.locator('#explore-meter');
  await waitFor(
    'the chooser filled',
    () => chooser.locator('option').count(),
    (n) => n === 4,
  );
  const asked = page.waitForRequest((request) => /\/api\/v1\/history\?.*meter=pv/.test(request.url()));
  await chooser.selectOption('pv');
  await asked;
  assert.match((await page.locator('#explore-csv').getAttribute('href')) ?? '', /meter=pv&format=csv/);
  assert.deepEqual(pageErrors, []);
});

test('Settings: add a meter, test its source (first reading shown), save; a duplicate id is refused and nothing stored', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const form = page.locator('#form-meters');
  await form.locator('#meters-add').click();
  const row = form.locator('.meter-entry').nth(0);
  await row.locator('[name=id]').fill('pv');
  await row.locator('[name=name]').fill('PV inverter');
  await row.locator('[name=role]').selectOption('pv');
  await row.locator('[name=kind]').selectOption('uri');
  await row.locator('[name=uri]').fill('simulator');
  await row.getByRole('button', { name: 'Test this source' }).click();
  await waitFor(
    'the first reading shown',
    () => row.locator('.meter-test').textContent(),
    (text) => /^first reading: status OK, power -?\d+\.\d{3} kW$/.test(text ?? ''),
  );
  await form.getByRole('button', { name: 'Save' }).click();
  await waitFor(
    'saved',
    () => form.locator('.form-status').textContent(),
    (text) => text === 'saved',
  );
  const listed = await waitFor(
    'pv in the meters list',
    async () => (await (await fetch(`${daemon.baseUrl}/api/v1/meters`)).json()) as Array<{ id: string }>,
    (found) => found.some((meter) => meter.id === 'pv'),
  );
  assert.deepEqual(
    listed.map((meter) => meter.id),
    ['main', 'pv'],
  );
  // A second row with the same id: the API's 400 names the field, and nothing is stored.
  await form.locator('#meters-add').click();
  const second = form.locator('.meter-entry').nth(1);
  await second.locator('[name=id]').fill('pv');
  await second.locator('[name=name]').fill('Again');
  await second.locator('[name=kind]').selectOption('uri');
  await second.locator('[name=uri]').fill('simulator');
  await form.getByRole('button', { name: 'Save' }).click();
  await waitFor(
    'the refusal shown',
    () => form.locator('.form-status').textContent(),
    (text) => /meters/.test(text ?? '') && text !== 'saved',
  );
  const settings = (await (await fetch(`${daemon.baseUrl}/api/v1/settings`)).json()) as { meters: unknown[] };
  assert.equal(settings.meters.length, 1);
  assert.deepEqual(pageErrors, []);
});

test('Settings: a Modbus TCP meter added through the labelled form, tested inline, saved and shown again after a reload', async (t) => {
  if (!requireChromium(t)) return;
  // The daemon's own Modbus TCP slave on loopback (SDM630 layout) is the meter the form adds.
  const port = await freePort();
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(port),
    METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630',
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
  });
  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const form = page.locator('#form-meters');
  await form.locator('#meters-add:not([disabled])').click();
  const row = form.locator('.meter-entry').nth(0);
  // Every field found by its label (<label for>): the form is usable with a screen reader.
  await row.getByLabel('Id', { exact: true }).fill('pv');
  await row.getByLabel('Name', { exact: true }).fill('PV meter');
  await row.getByLabel('Role').selectOption('pv');
  assert.equal(await row.getByLabel('Source', { exact: true }).inputValue(), 'modbus-tcp');
  await row.getByLabel('Host name or IP address').fill('127.0.0.1');
  await row.getByLabel('TCP port').fill(String(port));
  await row.getByLabel('Register profile').selectOption('sdm630');
  await row.getByLabel('Unit id').fill('1');
  const uri = `modbus-tcp://127.0.0.1:${port}?unit=1&profile=sdm630`;
  assert.equal(await row.locator('.meter-uri').textContent(), `Source URI: ${uri}`);
  // The fields of the other kinds are hidden, the expression builder too.
  assert.equal(await row.getByLabel('Expression').isVisible(), false);
  assert.equal(await row.getByLabel('Serial port').isVisible(), false);
  // A virtual meter beside it, its expression built from the meter ids the form offers.
  await form.locator('#meters-add').click();
  const net = form.locator('.meter-entry').nth(1);
  await net.getByLabel('Id', { exact: true }).fill('house');
  await net.getByLabel('Name', { exact: true }).fill('House');
  await net.getByLabel('Role').selectOption('consumer');
  await net.getByLabel('Source', { exact: true }).selectOption('virtual');
  assert.equal(await net.getByLabel('Host name or IP address').isVisible(), false);
  await net.getByLabel('Insert a meter id').selectOption('main');
  await net.getByLabel('Insert a meter id').selectOption('pv');
  assert.equal(await net.getByLabel('Expression').inputValue(), 'main + pv');
  await net.getByLabel('Expression').fill('main - pv');
  await row.getByRole('button', { name: 'Test this source' }).click();
  await waitFor(
    'the first reading shown beside the form',
    () => row.locator('.meter-test').textContent(),
    (text) => /^first reading: status OK, power -?\d+\.\d{3} kW$/.test(text ?? ''),
  );
  await form.getByRole('button', { name: 'Save' }).click();
  await waitFor(
    'saved',
    () => form.locator('.form-status').textContent(),
    (text) => text === 'saved',
  );
  const settings = (await (await fetch(`${daemon.baseUrl}/api/v1/settings`)).json()) as {
    meters: Array<Record<string, unknown>>;
  };
  assert.deepEqual(settings.meters, [
    { id: 'pv', name: 'PV meter', role: 'pv', source: uri },
    { id: 'house', name: 'House', role: 'consumer', expression: 'main - pv' },
  ]);

  await page.reload();
  const again = page.locator('#form-meters .meter-entry').nth(0);
  await again.getByLabel('Id', { exact: true }).waitFor();
  assert.equal(await again.getByLabel('Id', { exact: true }).inputValue(), 'pv');
  assert.equal(await again.getByLabel('Source', { exact: true }).inputValue(), 'modbus-tcp');
  assert.equal(await again.getByLabel('Host name or IP address').inputValue(), '127.0.0.1');
  assert.equal(await again.getByLabel('TCP port').inputValue(), String(port));
  assert.equal(await again.getByLabel('Register profile').inputValue(), 'sdm630');
  assert.equal(await again.locator('legend').textContent(), 'pv');
  // The meter runs: the Meters page lists it with its reading.
  await page.goto(`${daemon.baseUrl}/#/meters`);
  await waitFor(
    'pv OK on the Meters page',
    () => page.locator('#meters-table tr[data-meter="pv"] td').nth(2).textContent(),
    (text) => text === 'OK',
  );
  assert.deepEqual(pageErrors, []);
});

test('Settings: a serial meter whose line settings "Probe this port" found, saved as the source the probe named', async (t) => {
  if (!requireChromium(t) || !requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [telegram], 400));
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const form = page.locator('#form-meters');
  await form.locator('#meters-add:not([disabled])').click();
  const row = form.locator('.meter-entry').nth(0);
  await row.getByLabel('Id', { exact: true }).fill('p1');
  await row.getByLabel('Name', { exact: true }).fill('Second P1 port');
  await row.getByLabel('Source', { exact: true }).selectOption('serial');
  await row.getByLabel('Serial port').fill(pty.hostPath);
  await row.getByRole('button', { name: 'Probe this port' }).click();
  const expected = `serial:${pty.hostPath}?protocol=dsmr&baud=115200&databits=8&parity=none`;
  await waitFor(
    'the finding of the probe beside the form',
    () => row.locator('.meter-test').textContent(),
    (text) => text === `found DSMR: ${expected}`,
    { deadlineMs: 40_000 },
  );
  assert.equal(await row.getByLabel('Protocol').inputValue(), 'dsmr');
  assert.equal(await row.getByLabel('Line settings').inputValue(), 'baud=115200&databits=8&parity=none');
  assert.equal(await row.locator('.meter-uri').textContent(), `Source URI: ${expected}`);
  await form.getByRole('button', { name: 'Save' }).click();
  await waitFor(
    'saved',
    () => form.locator('.form-status').textContent(),
    (text) => text === 'saved',
  );
  const settings = (await (await fetch(`${daemon.baseUrl}/api/v1/settings`)).json()) as {
    meters: Array<{ source?: string }>;
  };
  assert.equal(settings.meters[0]?.source, expected);
  assert.deepEqual(pageErrors, []);
});

test('Settings: "Find on the network" for a HomeWizard or Shelly source, over mDNS in a test network namespace', async (t) => {
  if (!requireChromium(t)) return;
  // The daemon and Chromium in namespace a (meters-discover-page.ts), the dongles in b: the browse's
  // multicast goes over the namespaces' veth pair only.
  const namespaces = vethNamespaces('10.231.80');
  if (
    !requirePeer(
      t,
      typeof namespaces !== 'string',
      `network namespaces for multicast (${String(namespaces)})`,
    )
  )
    return;
  if (typeof namespaces === 'string') return;
  const run = (ns: string, module: string, ...args: string[]) => {
    const { command, args: base } = testModuleCommand(module);
    // The child reports on its own (node's runner would otherwise make it talk its inner protocol).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    return spawn('ip', ['netns', 'exec', ns, command, ...base, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env,
    });
  };
  const dongles = run(namespaces.b, 'device/mdns-dongles-peer', 'dongles', 'plain', '10.231.80.2');
  // The page's process starts beside the dongles' and loads its modules meanwhile; its test begins
  // once it is told, on its stdin, that the dongles answer (meters-discover-page.ts).
  const page = run(namespaces.a, 'web/meters-discover-page', '--after-stdin-line');
  let output = '';
  page.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => page.on('exit', resolve));
  try {
    await new Promise<void>((resolve) => dongles.stdout!.once('data', () => resolve()));
    page.stdin!.end('the dongles answer\n');
    const code = await exited;
    assert.equal(code, 0, output);
    assert.match(output, /^\S* ?pass 1$/m, output);
  } finally {
    if (page.exitCode === null && page.signalCode === null) {
      page.kill('SIGTERM');
      await exited;
    }
    dongles.stdin!.write('quit\n');
    await new Promise((resolve) => dongles.on('exit', resolve));
    namespaces.remove();
  }
});
