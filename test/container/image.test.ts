import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hasCommand, inCi, repoRoot, requirePeer } from '../helpers/environment.js';
import { HEADLESS_SHELL_PATH } from '../helpers/browser.js';
import { launchMappedBrowser, useEveryPage } from '../web/addresses-check.js';
import { closeClient, connectClient, readWords } from '../modbus/clients.js';
import { BASE_IMAGE, Podman, standInTarball } from './podman.js';
import { freePort } from '../helpers/ports.js';

const IMAGE = 'localhost/meter-gateway:test';
/** The Dockerfile's build stage, tagged so that its layers stay in the kept storage. */
const BUILD_STAGE = 'localhost/meter-gateway-build-stage:test';
const MODEL = 'container-test-model';

/** Polls until the API answers 200 (the container starts in the background). */
async function waitForApi(url: string, container: string, podman: Podman): Promise<void> {
  for (;;) {
    const answered = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    const state = (await podman.exec(['inspect', '--format', '{{.State.Status}}', container])).trim();
    if (state !== 'running')
      throw new Error(`container ${state}:\n${await podman.exec(['logs', container])}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function npmCacheDir(): string {
  try {
    return execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  } catch {
    return join(homedir(), '.npm');
  }
}

test(
  'the Dockerfile builds on a stand-in base; the image serves the API as a non-root user, passes its health check, keeps state in /data across containers, serves Modbus through a published port and is unhealthy when Modbus cannot listen',
  { timeout: 1_500_000 },
  async (t) => {
    const tools = ['podman', 'runc', 'debootstrap'].filter((name) => !hasCommand(name));
    const root = process.getuid?.() === 0;
    if (!requirePeer(t, tools.length === 0, `container tools (${tools.join(', ')} missing)`)) return;
    if (!requirePeer(t, root, 'root (debootstrap and podman storage need it)')) return;

    const podman = await Podman.kept();
    await podman.clear();
    t.after(() => podman.close());
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    const tarball = await standInTarball(extraCa && existsSync(extraCa) ? extraCa : undefined);
    const changes = ['--change', 'CMD ["node"]'];
    if (extraCa) changes.push('--change', 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/extra-ca.crt');
    await podman.importBase(tarball, changes, BASE_IMAGE);

    // The real Dockerfile, unchanged. --format docker keeps HEALTHCHECK (OCI image configs have no
    // such field); the host's npm cache spares the registry downloads. --layers keeps each step's
    // layer in the kept storage: the next run reuses every step up to the first whose inputs
    // changed, so `npm ci` runs again only when package.json or package-lock.json did.
    const build = (target: string[], tag: string) =>
      podman.exec([
        'build',
        '--isolation',
        'chroot',
        '--network',
        'host',
        '--pull=never',
        '--layers',
        '--format',
        'docker',
        '--volume',
        `${npmCacheDir()}:/root/.npm`,
        ...target,
        '--tag',
        tag,
        repoRoot,
      ]);
    await build([], IMAGE);
    // The build stage's layers (the `npm ci` one among them) are no parents of the final image,
    // which starts again from the base: untagged, the prune at the end of the run removed them as
    // dangling, and the next run installed the packages again. Tagging the stage (every step is
    // cached by now) keeps them for the next run.
    await build(['--target', 'build'], BUILD_STAGE);
    const configDir = mkdtempSync(join(tmpdir(), 'mg-container-config-'));
    t.after(() => rmSync(configDir, { recursive: true, force: true }));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ device: { model: MODEL } }), {
      mode: 0o644,
    });
    await podman.exec(['volume', 'create', 'mg-data']);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const runContainer = (name: string) =>
      podman.exec([
        'run',
        '--detach',
        '--name',
        name,
        '--network',
        'host',
        '--volume',
        'mg-data:/data',
        '--volume',
        `${join(configDir, 'config.json')}:/etc/meter-gateway/config.json:ro`,
        '--env',
        `METER_GATEWAY_HTTP_PORT=${port}`,
        '--env',
        'METER_GATEWAY_HTTP_HOST=127.0.0.1',
        '--env',
        'METER_GATEWAY_SERVICES_BROADCAST=false',
        IMAGE,
      ]);

    await runContainer('mg-first');
    await waitForApi(`${base}/api/v1/report`, 'mg-first', podman);
    const report = (await (await fetch(`${base}/api/v1/report`)).json()) as { meter: { status: string } };
    assert.equal(typeof report.meter.status, 'string');
    await podman.exec(['healthcheck', 'run', 'mg-first']);
    const status = await podman.exec(['exec', 'mg-first', 'cat', '/proc/1/status']);
    const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    assert.ok(uids, status);
    assert.notEqual(uids[1], '0', 'the daemon runs as root');
    assert.notEqual(uids[2], '0', 'the daemon runs as root');

    const system = (await (await fetch(`${base}/api/v1/system`)).json()) as {
      device: { id: string; model: string };
    };
    assert.equal(system.device.model, MODEL, 'the mounted config file was not read');
    const renamed = await fetch(`${base}/api/v1/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ system: { name: 'container-state' } }),
    });
    assert.equal(renamed.status, 200);
    const mountpoint = (
      await podman.exec(['volume', 'inspect', '--format', '{{.Mountpoint}}', 'mg-data'])
    ).trim();
    const stateFiles = readdirSync(mountpoint, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
    assert.ok(
      stateFiles.some((name) => readFileSync(join(mountpoint, name), 'utf8').includes('container-state')),
      `the settings are not in the /data volume: ${stateFiles.join(', ')}`,
    );

    // A new container on the same volume: the settings and the generated system id come back.
    await podman.exec(['rm', '--force', '--time', '10', 'mg-first']);
    await runContainer('mg-second');
    await waitForApi(`${base}/api/v1/system`, 'mg-second', podman);
    const again = (await (await fetch(`${base}/api/v1/system`)).json()) as {
      device: { id: string; name: string };
    };
    assert.equal(again.device.id, system.device.id);
    assert.equal(again.device.name, 'container-state');
    await podman.exec(['healthcheck', 'run', 'mg-second']);
    await podman.exec(['rm', '--force', '--time', '10', 'mg-second']);

    await modbusThroughPublishedPort(podman);
  },
);

/**
 * Modbus TCP through a published port, as the README runs it (`-p <host>:5020`): the daemon, not
 * root, listens on 5020 inside and an inverter reads the host's port. Then the same image with
 * Modbus forced onto 502 inside: the listener fails (EACCES), the health check fails and names the
 * output, and /api/v1/system says which one. TZ set for the container is the daemon's zone.
 */
async function modbusThroughPublishedPort(podman: Podman): Promise<void> {
  const [httpPort, modbusPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${httpPort}`;
  const publish = (name: string, env: string[]) =>
    podman.exec([
      'run',
      '--detach',
      '--name',
      name,
      '--publish',
      `127.0.0.1:${httpPort}:8080`,
      '--publish',
      `127.0.0.1:${modbusPort}:5020`,
      '--env',
      'METER_GATEWAY_SERVICES_BROADCAST=false',
      '--env',
      'METER_GATEWAY_SERVICES_MODBUS_ENABLE=true',
      ...env.flatMap((value) => ['--env', value]),
      IMAGE,
    ]);
  await publish('mg-modbus', ['TZ=Europe/Amsterdam']);
  await waitForApi(`${base}/api/v1/report`, 'mg-modbus', podman);
  // TZ reaches the daemon: local times carry Amsterdam's offset (Node's own zone data, no tzdata).
  const { system: clock } = (await (await fetch(`${base}/api/v1/report`)).json()) as {
    system: { date_time: string };
  };
  const offset = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Amsterdam',
    timeZoneName: 'longOffset',
  })
    .formatToParts(new Date(Date.parse(clock.date_time)))
    .find((part) => part.type === 'timeZoneName')!
    .value.replace('GMT', '');
  assert.ok(clock.date_time.endsWith(offset), `${clock.date_time} in Europe/Amsterdam (${offset})`);
  await waitForModbus(base);
  const client = await connectClient(modbusPort);
  try {
    // Input register 0 of the whatwatt layout: the first value set, read through the published port.
    const words = await readWords(client, 0, 10);
    assert.equal(words.length, 20);
  } finally {
    await closeClient(client);
  }
  await podman.exec(['healthcheck', 'run', 'mg-modbus']);
  await browserThroughPublishedPort(httpPort);
  await podman.exec(['rm', '--force', '--time', '10', 'mg-modbus']);

  await publish('mg-modbus-502', ['METER_GATEWAY_SERVICES_MODBUS_PORT=502']);
  await waitForApi(`${base}/api/v1/report`, 'mg-modbus-502', podman);
  const system = (await (await fetch(`${base}/api/v1/system`)).json()) as {
    health: { status: string; failed: { output: string; error: string }[] };
  };
  assert.equal(system.health.status, 'failing');
  assert.deepEqual(
    system.health.failed.map((entry) => entry.output),
    ['modbus'],
  );
  assert.match(system.health.failed[0]!.error, /EACCES/);
  await assert.rejects(podman.exec(['healthcheck', 'run', 'mg-modbus-502']), /unhealthy|exit status 1/);
  const log = await podman
    .exec(['exec', 'mg-modbus-502', 'node', 'dist/src/health-check.js'])
    .catch((error: Error) => error.message);
  assert.match(log, /unhealthy: output failed: modbus \(.*EACCES.*\)/);
  await podman.exec(['rm', '--force', '--time', '10', 'mg-modbus-502']);
}

/**
 * The interface through the published port, as a browser on the container's host opens it: at the
 * host's address and at a host name the container never heard of (Chromium maps it to 127.0.0.1).
 * Inside, the socket's address is the container's own, not the one the browser used
 * (docs/architecture.md#cross-site-requests).
 */
async function browserThroughPublishedPort(port: number): Promise<void> {
  if (!existsSync(HEADLESS_SHELL_PATH)) {
    if (inCi)
      throw new Error(
        `required test peer missing under CI: chromium-headless-shell at ${HEADLESS_SHELL_PATH}`,
      );
    console.log(
      `# skipped: the interface through the published port (no chromium-headless-shell at ${HEADLESS_SHELL_PATH})`,
    );
    return;
  }
  const browser = await launchMappedBrowser(['docker-host.lan']);
  try {
    await useEveryPage(browser, `http://127.0.0.1:${port}/`, 'Container meter');
    await useEveryPage(browser, `http://docker-host.lan:${port}/`, 'Docker host meter');
  } finally {
    await browser.close();
  }
}

/** Until /api/v1/system shows the Modbus slave running (it starts after the API). */
async function waitForModbus(base: string): Promise<void> {
  for (;;) {
    const system = (await (await fetch(`${base}/api/v1/system`)).json()) as {
      services: { modbus?: { state: string } };
    };
    if (system.services.modbus?.state === 'running') return;
    if (system.services.modbus?.state === 'error') throw new Error(JSON.stringify(system.services.modbus));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
