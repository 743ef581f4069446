import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { repoRoot, requireCommand, requirePeer } from '../helpers/environment.js';
import { freePort } from '../helpers/ports.js';

const INSTALL = join(repoRoot, 'systemd', 'install.sh');
const VERSION = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

/** Fake systemctl and useradd on PATH: they log their arguments; systemctl keeps an active flag. */
const FAKE_SYSTEMCTL = `#!/bin/sh
echo "systemctl $*" >>"$FAKE_DIR/calls"
case "$1" in
  is-active) [ -f "$FAKE_DIR/active" ] && exit 0; exit 3 ;;
  start|restart) touch "$FAKE_DIR/active" ;;
esac
exit 0
`;
const FAKE_USERADD = `#!/bin/sh
echo "useradd $*" >>"$FAKE_DIR/calls"
exit 0
`;

interface Sandbox {
  dir: string;
  prefix: string;
  unitDir: string;
  fakeDir: string;
  install(args: string[], script?: string): { status: number | null; stdout: string; stderr: string };
  calls(): string[];
}

function sandbox(t: TestContext): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'mg-install-update-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fakeDir = join(dir, 'fake');
  mkdirSync(fakeDir);
  for (const [name, body] of [
    ['systemctl', FAKE_SYSTEMCTL],
    ['useradd', FAKE_USERADD],
  ] as const) {
    writeFileSync(join(fakeDir, name), body);
    chmodSync(join(fakeDir, name), 0o755);
  }
  const prefix = join(dir, 'opt');
  const unitDir = join(dir, 'units');
  return {
    dir,
    prefix,
    unitDir,
    fakeDir,
    install(args, script = INSTALL) {
      const result = spawnSync(
        'bash',
        [
          script,
          ...['--prefix', prefix, '--config-dir', join(dir, 'etc'), '--state-dir', join(dir, 'state')],
          ...['--unit-dir', unitDir, '--node', process.execPath],
          ...args,
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, PATH: `${fakeDir}:${process.env.PATH ?? ''}`, FAKE_DIR: fakeDir },
        },
      );
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    calls() {
      const file = join(fakeDir, 'calls');
      return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    },
  };
}

/**
 * The release bundle of this build (scripts/release.ts), made once for the file's tests: it reads
 * and compresses the build and its production packages, seconds of CPU a time.
 */
let bundleMade: { path: string; stdout: string } | undefined;
let bundleDir: string | undefined;
after(() => {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

function releaseBundle(): { path: string; stdout: string } {
  if (bundleMade) return bundleMade;
  bundleDir = mkdtempSync(join(tmpdir(), 'mg-install-bundle-'));
  const path = join(bundleDir, 'meter-gateway.bin');
  const made = spawnSync(process.execPath, [join(repoRoot, 'dist', 'scripts', 'release.js'), '--out', path], {
    encoding: 'utf8',
    cwd: repoRoot,
  });
  assert.equal(made.status, 0, made.stderr);
  bundleMade = { path, stdout: made.stdout };
  return bundleMade;
}

function releases(prefix: string): string[] {
  return readdirSync(join(prefix, 'releases')).sort();
}

test(
  'install.sh again restarts the service, writes previous, keeps three releases, installs a bundle without a build',
  { timeout: 600_000 },
  async (t) => {
    if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh owns files and runs as root)')) return;
    const box = sandbox(t);
    const port = String(await freePort());
    const common = ['--user', 'root', '--http-port', port];

    const first = box.install(common);
    assert.equal(first.status, 0, first.stdout + first.stderr);
    const release1 = readlinkSync(join(box.prefix, 'current'));
    assert.match(release1, /^releases\/\d+\.\d+\.\d+-local-\d{14}$/);
    assert.equal(existsSync(join(box.prefix, 'previous')), false);
    assert.deepEqual(
      box.calls().filter((call) => !call.includes('is-active')),
      ['systemctl daemon-reload', 'systemctl enable meter-gateway', 'systemctl start meter-gateway'],
    );
    assert.match(first.stdout, new RegExp(`meter-gateway ${VERSION} \\(${release1.slice(9)}\\) is running`));
    const unit = readFileSync(join(box.unitDir, 'meter-gateway.service'), 'utf8');
    assert.match(unit, new RegExp(`^ExecStart=${process.execPath} /opt/meter-gateway/launcher.mjs `, 'm'));
    assert.equal(
      readFileSync(join(box.unitDir, 'meter-gateway.service.d', 'http-port.conf'), 'utf8'),
      `[Service]\nEnvironment=METER_GATEWAY_HTTP_PORT=${port}\n`,
    );

    // The second run: the service runs, so it is restarted on the new release.
    const second = box.install(['--user', 'root']);
    assert.equal(second.status, 0, second.stdout + second.stderr);
    const release2 = readlinkSync(join(box.prefix, 'current'));
    assert.notEqual(release2, release1);
    assert.equal(readlinkSync(join(box.prefix, 'previous')), release1);
    assert.equal(box.calls().at(-2), 'systemctl restart meter-gateway');
    assert.match(second.stdout, new RegExp(`\\(${release2.slice(9)}\\) is running on HTTP port ${port}`));

    // A bundle made elsewhere, installed by the script alone: no build, no node_modules beside it.
    const { path: bundle, stdout: madeStdout } = releaseBundle();
    const clone = join(box.dir, 'clone', 'systemd');
    mkdirSync(clone, { recursive: true });
    copyFileSync(INSTALL, join(clone, 'install.sh'));
    const fromBundle = box.install(['--user', 'root', '--bundle', bundle], join(clone, 'install.sh'));
    assert.equal(fromBundle.status, 0, fromBundle.stdout + fromBundle.stderr);
    const release3 = readlinkSync(join(box.prefix, 'current'));
    const sha = /sha256 ([0-9a-f]{64})/.exec(madeStdout)?.[1];
    assert.equal(release3, `releases/${VERSION}-${sha?.slice(0, 12)}`);
    assert.equal(readlinkSync(join(box.prefix, 'previous')), release2);
    assert.ok(existsSync(join(box.prefix, 'current', 'dist', 'src', 'main.js')));
    assert.ok(
      !existsSync(join(box.prefix, 'current', 'node_modules', 'typescript')),
      'dev packages in bundle',
    );
    assert.equal(box.calls().at(-2), 'systemctl restart meter-gateway');

    // A fourth release: the oldest goes, three stay.
    const fourth = box.install(['--user', 'root']);
    assert.equal(fourth.status, 0, fourth.stdout + fourth.stderr);
    const release4 = readlinkSync(join(box.prefix, 'current'));
    assert.equal(readlinkSync(join(box.prefix, 'previous')), release3);
    assert.deepEqual(releases(box.prefix), [release2, release3, release4].map((r) => r.slice(9)).sort());
    assert.match(fourth.stdout, new RegExp(`removed old release ${release1.slice(9)}`));
    assert.equal(readFileSync(join(box.prefix, 'launcher.mjs'), 'utf8').length > 0, true);
  },
);

test('install.sh refuses when the node the unit runs is missing, and names the one on PATH', (t) => {
  if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh runs as root)')) return;
  const box = sandbox(t);
  const result = box.install(['--user', 'root', '--node', join(box.dir, 'no-such', 'node')]);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    /the service runs .*no-such\/node, which does not exist; install Node\.js 20 or newer/,
  );
  assert.match(result.stderr, /install\.sh --node \//);
  assert.equal(existsSync(box.prefix), false, 'nothing installed');
});

test('install.sh refuses a port another program listens on, before installing', async (t) => {
  if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh runs as root)')) return;
  if (!requireCommand(t, 'ss')) return;
  const box = sandbox(t);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const result = box.install(['--user', 'root', '--http-port', String(port)]);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    new RegExp(`port ${port} is in use .*choose another HTTP port: install\\.sh --http-port`),
  );
  assert.equal(existsSync(box.prefix), false);
});

test('install.sh checks a port that changes even while the service runs on the old one', async (t) => {
  if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh runs as root)')) return;
  if (!requireCommand(t, 'ss')) return;
  const box = sandbox(t);
  // The service runs (fake systemctl's flag) on the port an earlier run wrote into the drop-in.
  writeFileSync(join(box.fakeDir, 'active'), '');
  mkdirSync(join(box.unitDir, 'meter-gateway.service.d'), { recursive: true });
  writeFileSync(
    join(box.unitDir, 'meter-gateway.service.d', 'http-port.conf'),
    `[Service]\nEnvironment=METER_GATEWAY_HTTP_PORT=${await freePort()}\n`,
  );
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const result = box.install(['--user', 'root', '--http-port', String(port)]);
  assert.equal(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stderr, new RegExp(`port ${port} is in use .*choose another HTTP port`));
  assert.equal(existsSync(box.prefix), false, 'nothing installed');
});

/** Installed releases made by hand, oldest first (their mtimes an hour apart), and the launcher's files. */
function fakeInstalled(
  prefix: string,
  ids: string[],
  links: { current: string; previous: string; confirmed?: string; failed?: string },
): void {
  const hour = 3_600_000;
  ids.forEach((id, index) => {
    const dir = join(prefix, 'releases', id);
    mkdirSync(dir, { recursive: true });
    const when = new Date(Date.now() - (ids.length - index + 1) * hour);
    utimesSync(dir, when, when);
  });
  symlinkSync(`releases/${links.current}`, join(prefix, 'current'));
  symlinkSync(`releases/${links.previous}`, join(prefix, 'previous'));
  if (links.confirmed) writeFileSync(join(prefix, 'confirmed'), `${links.confirmed}\n`);
  if (links.failed) writeFileSync(join(prefix, 'failed'), `${links.failed}\n`);
}

test(
  'install.sh never removes the release a rollback may need next: confirmed stays, the failed one goes first',
  { timeout: 600_000 },
  async (t) => {
    if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh owns files and runs as root)')) return;
    const port = String(await freePort());
    // After a rollback: the launcher went back from 0.3.0 to 0.2.0 (previous = current = 0.2.0).
    const afterRollback = sandbox(t);
    fakeInstalled(afterRollback.prefix, ['0.1.0-good', '0.2.0-good', '0.3.0-failed'], {
      current: '0.2.0-good',
      previous: '0.2.0-good',
      confirmed: '0.2.0-good',
      failed: '0.3.0-failed',
    });
    const first = afterRollback.install(['--user', 'root', '--http-port', port]);
    assert.equal(first.status, 0, first.stdout + first.stderr);
    const installed = readlinkSync(join(afterRollback.prefix, 'current')).slice(9);
    assert.equal(readlinkSync(join(afterRollback.prefix, 'previous')), 'releases/0.2.0-good');
    assert.deepEqual(releases(afterRollback.prefix), ['0.1.0-good', '0.2.0-good', installed].sort());
    assert.match(first.stdout, /removed old release 0\.3\.0-failed/);

    // The last release that reported READY is the oldest: it stays over a newer unconfirmed one.
    const unconfirmed = sandbox(t);
    fakeInstalled(unconfirmed.prefix, ['0.1.0-good', '0.2.0-new', '0.3.0-new'], {
      current: '0.3.0-new',
      previous: '0.2.0-new',
      confirmed: '0.1.0-good',
    });
    const second = unconfirmed.install(['--user', 'root', '--http-port', port]);
    assert.equal(second.status, 0, second.stdout + second.stderr);
    const newest = readlinkSync(join(unconfirmed.prefix, 'current')).slice(9);
    assert.equal(readlinkSync(join(unconfirmed.prefix, 'previous')), 'releases/0.3.0-new');
    assert.deepEqual(releases(unconfirmed.prefix), ['0.1.0-good', '0.3.0-new', newest].sort());
    assert.match(second.stdout, /removed old release 0\.2\.0-new/);
  },
);

test('install.sh creates the service user with useradd and stops when it does not exist afterwards', (t) => {
  if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh runs as root)')) return;
  const box = sandbox(t);
  const result = box.install(['--user', 'mg-no-such-user', '--no-systemd']);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /useradd did not create the user mg-no-such-user/);
  assert.deepEqual(box.calls(), [
    `useradd --system --user-group --no-create-home --home-dir ${join(box.dir, 'state')} --shell /usr/sbin/nologin mg-no-such-user`,
  ]);
});

test('install.sh refuses a bundle whose payload does not match its SHA-256', (t) => {
  if (!requirePeer(t, process.getuid?.() === 0, 'root (install.sh runs as root)')) return;
  const box = sandbox(t);
  const bundle = join(box.dir, 'broken.bin');
  copyFileSync(releaseBundle().path, bundle);
  const bytes = readFileSync(bundle);
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
  writeFileSync(bundle, bytes);
  const result = box.install(['--user', 'root', '--no-systemd', '--bundle', bundle]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /payload SHA-256 [0-9a-f]{64} does not match the header's [0-9a-f]{64}/);
  assert.deepEqual(readdirSync(join(box.prefix, 'releases')), [], 'nothing left behind');
});
