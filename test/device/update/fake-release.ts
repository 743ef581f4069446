import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { signBundle, writeUnsignedBundle } from '../../../src/device/update/bundle-writer.js';

/** How the fake app behaves when the launcher starts it. */
export type AppBehaviour = 'works' | 'crashes' | 'hangs' | 'port-taken';

/**
 * A tiny stand-in for the app (not the whole project, to keep tests fast): package.json with the
 * real name and bin entry, and dist/src/main.js that records that it ran (`ran-<version>` in the
 * state dir) and then either writes the READY file and serves until SIGTERM, exits 1 at once, exits
 * 78 at once as the daemon does when its HTTP port is taken, or never gets ready. Its SIGTERM handler is in place before it writes anything, so a test that stops
 * it after seeing one of its files knows the signal reaches the handler.
 */
export function writeFakeApp(dir: string, version: string, behaviour: AppBehaviour, padding = 0): void {
  mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'meter-gateway',
      version,
      type: 'module',
      bin: { 'meter-gateway': 'dist/src/main.js' },
    }),
  );
  const main = `import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
const stateDir = process.argv[process.argv.indexOf('--state-dir') + 1];
// The SIGTERM handler first, as the daemon's main does: a stop that follows READY (or the ran file) must reach it.
const timer = setInterval(() => undefined, 1000);
process.on('SIGTERM', () => { clearInterval(timer); writeFileSync(join(stateDir, 'stopped-${version}'), ''); });
writeFileSync(join(stateDir, 'ran-${version}'), String(process.pid));
const behaviour = ${JSON.stringify(behaviour)};
if (behaviour === 'crashes') {
  console.error('fake app ${version}: cannot start');
  process.exit(1);
}
if (behaviour === 'port-taken') {
  console.error('fake app ${version}: HTTP port 8081 is in use by another program');
  process.exit(78);
}
if (behaviour === 'works') {
  writeFileSync(join(stateDir, 'ready.tmp'), process.pid + '\\n');
  renameSync(join(stateDir, 'ready.tmp'), join(stateDir, 'ready'));
}
`;
  writeFileSync(join(dir, 'dist', 'src', 'main.js'), main);
  if (padding > 0) writeFileSync(join(dir, 'dist', 'padding.bin'), randomBytes(padding));
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKeyPem: string;
}

export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** Builds (and signs, when a key is given) a bundle of a fake app; returns the bundle path. */
export async function buildFakeBundle(
  workDir: string,
  version: string,
  behaviour: AppBehaviour,
  key: SigningKey | undefined,
  padding = 0,
): Promise<string> {
  const appDir = mkdtempSync(join(workDir, `app-${version}-`));
  writeFakeApp(appDir, version, behaviour, padding);
  const out = join(workDir, `bundle-${version}-${behaviour}-${randomBytes(3).toString('hex')}.bin`);
  await writeUnsignedBundle({ cwd: appDir, paths: ['package.json', 'dist'], version, out });
  if (key) await signBundle(out, key.privateKey);
  rmSync(appDir, { recursive: true, force: true });
  return out;
}

/** An install root with one release of a fake app already installed, current and confirmed. */
export function installRootWith(workDir: string, version: string, behaviour: AppBehaviour): string {
  const root = mkdtempSync(join(workDir, 'install-'));
  const id = `${version}-000000000000`;
  writeFakeApp(join(root, 'releases', id), version, behaviour);
  symlinkSync(`releases/${id}`, join(root, 'current'));
  writeFileSync(join(root, 'confirmed'), `${id}\n`);
  return root;
}

/** Links, releases and marker files of an install root, to compare before and after a request. */
export function snapshotInstall(root: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  for (const name of readdirSync(root).sort()) {
    if (name === 'releases') snapshot.releases = readdirSync(join(root, 'releases')).sort().join(',');
    else {
      try {
        snapshot[name] = `-> ${readlinkSync(join(root, name))}`;
      } catch {
        snapshot[name] = 'file';
      }
    }
  }
  return snapshot;
}
