import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The base image the Dockerfile's FROM names; the stand-in is tagged with it. */
export const BASE_IMAGE = 'docker.io/library/node:22-bookworm-slim';
const SUITE = 'bookworm';
const MIRROR = 'http://deb.debian.org/debian';

/** statfs(2) f_type of overlayfs (linux/magic.h OVERLAYFS_SUPER_MAGIC). */
const OVERLAYFS_MAGIC = 0x794c7630;

/**
 * podman's storage driver for storage in `dir`: overlay when the kernel has overlayfs and `dir` is
 * not itself on overlayfs (an overlay upper directory on overlayfs fails to mount, as in a container
 * without its own storage volume), else vfs. vfs works everywhere but copies the whole file tree
 * for every layer and container: the image build and its four containers took about 12 s more CPU
 * on vfs than on overlay.
 */
function storageDriver(dir: string): 'overlay' | 'vfs' {
  const kernelHasOverlay = /\toverlay$/m.test(readFileSync('/proc/filesystems', 'utf8'));
  return kernelHasOverlay && statfsSync(dir).type !== OVERLAYFS_MAGIC ? 'overlay' : 'vfs';
}

/**
 * Where the image test keeps podman's storage from one run to the next: one folder per machine, not
 * per checkout, so that a fresh clone's `podman build --layers` reuses the Dockerfile's `npm ci`
 * layer while package.json and package-lock.json are unchanged (a folder per checkout path was
 * never reused by a fresh clone, and left one storage behind per clone). Two runs on one machine
 * take turns (Podman.kept). Removing the folder starts afresh.
 */
export function keptStorageDir(): string {
  return join(tmpdir(), 'meter-gateway-podman');
}

/** True while a process with this pid exists (signal 0 checks without sending anything). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Holds the kept storage for this process, so that two test runs never clear each other's
 * containers or prune the layers of a build under way: the first writes its pid to `owner.pid`
 * (created exclusively), the other waits until the file is gone or names a process that no longer
 * exists (a run that was killed). Returns the release.
 */
async function holdStorage(root: string): Promise<() => void> {
  const owner = join(root, 'owner.pid');
  for (;;) {
    try {
      writeFileSync(owner, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(owner, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let pid: number;
    try {
      pid = Number.parseInt(readFileSync(owner, 'utf8'), 10);
    } catch {
      continue; // released between the two calls
    }
    if (!Number.isInteger(pid) || !processAlive(pid)) rmSync(owner, { force: true });
    else await delay(2000);
  }
}

/**
 * podman with the settings that work without a Docker engine or systemd: overlay storage where it
 * can mount, else vfs (storageDriver), runc, cgroupfs, and a containers.conf without default
 * rlimits and pids limit (setting them fails in a nested or unprivileged environment). Storage
 * lives in `root`: a fresh temporary folder removed by close(), or a kept folder (keptStorageDir)
 * whose images stay for the next run and whose containers and volumes clear() and close() remove.
 */
export class Podman {
  readonly root: string;
  readonly driver: 'overlay' | 'vfs';
  private readonly kept: boolean;
  private readonly env: NodeJS.ProcessEnv;

  private release: () => void = () => undefined;

  /** podman on the machine's kept storage (keptStorageDir), held until close(). */
  static async kept(): Promise<Podman> {
    const root = keptStorageDir();
    mkdirSync(root, { recursive: true });
    const release = await holdStorage(root);
    const podman = new Podman(root);
    podman.release = release;
    return podman;
  }

  constructor(keptRoot?: string) {
    this.kept = keptRoot !== undefined;
    if (keptRoot) mkdirSync(keptRoot, { recursive: true });
    this.root = keptRoot ?? mkdtempSync(join(tmpdir(), 'mg-podman-'));
    this.driver = storageDriver(this.root);
    const conf = join(this.root, 'containers.conf');
    execFileSync('sh', ['-c', `printf '[containers]\\ndefault_ulimits = []\\npids_limit = 0\\n' >"${conf}"`]);
    this.env = { ...process.env, CONTAINERS_CONF: conf };
  }

  async exec(args: string[], timeoutMs = 600_000): Promise<string> {
    const global = [
      '--root',
      join(this.root, 'storage'),
      '--runroot',
      join(this.root, 'run'),
      '--storage-driver',
      this.driver,
      '--runtime',
      'runc',
      '--cgroup-manager',
      'cgroupfs',
    ];
    try {
      const { stdout } = await run('podman', [...global, ...args], {
        env: this.env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`podman ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
    }
  }

  /** Removes every container and volume (a kept storage's leftovers of an interrupted run). */
  async clear(): Promise<void> {
    await this.exec(['rm', '--all', '--force', '--time', '0']).catch(() => undefined);
    await this.exec(['volume', 'rm', '--all', '--force']).catch(() => undefined);
  }

  /**
   * Tags the image of `tarball` (podman import with `changes`) as `reference`. In kept storage the
   * import is done once per tarball and changes: importing again would give the base a new image
   * ID, and no layer built on the old one would be reused.
   */
  async importBase(tarball: string, changes: string[], reference: string): Promise<void> {
    const key = createHash('sha256')
      .update(`${tarball}\n${changes.join('\n')}`)
      .digest('hex')
      .slice(0, 16);
    const imported = `localhost/meter-gateway-stand-in:${key}`;
    const exists = await this.exec(['image', 'exists', imported]).then(
      () => true,
      () => false,
    );
    if (!exists) await this.exec(['import', ...changes, tarball, imported]);
    await this.exec(['tag', imported, reference]);
  }

  async close(): Promise<void> {
    try {
      await this.clear();
      if (this.kept) {
        // Images no tag leads to any more (an earlier build's layers); the layers under the
        // current tags, the `npm ci` layer among them, stay.
        await this.exec(['image', 'prune', '--force']).catch(() => undefined);
        return;
      }
      rmSync(this.root, { recursive: true, force: true });
    } finally {
      this.release();
    }
  }
}

/** The machine's node binary and the npm package beside it (the official image's layout). */
function nodeAndNpm(): { node: string; npm: string } {
  const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  return { node: realpathSync(process.execPath), npm: dirname(dirname(npmCli)) };
}

/** Hex digest of what goes into the stand-in: suite, node binary, npm version, CA bundle. */
function standInKey(node: string, npm: string, caFile: string | undefined): string {
  const hash = createHash('sha256').update(`${SUITE} minbase ${MIRROR}\n`);
  const nodeStat = statSync(node);
  hash.update(`${process.version} ${nodeStat.size} ${nodeStat.mtimeMs}\n`);
  hash.update(readFileSync(join(npm, 'package.json')));
  if (caFile) hash.update(readFileSync(caFile));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A tarball of a stand-in for the slim Node image: `debootstrap --variant=minbase` of Debian
 * bookworm plus this machine's node and npm under /usr/local (where the official image keeps
 * them), without apt lists, documentation and locales. Cached in the temp directory under a key
 * of its inputs, so only the first run pays for debootstrap.
 */
export async function standInTarball(caFile: string | undefined): Promise<string> {
  const { node, npm } = nodeAndNpm();
  const cacheDir = join(tmpdir(), 'meter-gateway-stand-in');
  const tarball = join(cacheDir, `${standInKey(node, npm, caFile)}.tar`);
  if (existsSync(tarball)) return tarball;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, 'build-'));
  const rootfs = join(work, 'rootfs');
  try {
    await run('debootstrap', ['--variant=minbase', SUITE, rootfs, MIRROR], {
      timeout: 900_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const script = [
      'set -e',
      'rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/archives/*.deb "$R"/usr/share/doc/* "$R"/usr/share/locale/* "$R"/usr/share/man/*',
      'install -d "$R/usr/local/bin" "$R/usr/local/lib/node_modules"',
      'cp "$NODE" "$R/usr/local/bin/node"',
      'cp -a "$NPM" "$R/usr/local/lib/node_modules/npm"',
      'ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$R/usr/local/bin/npm"',
      'ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$R/usr/local/bin/npx"',
      'if [ -n "$CA" ]; then install -D -m 0644 "$CA" "$R/etc/ssl/certs/extra-ca.crt"; fi',
      'tar -C "$R" -cf "$OUT.part" . && mv "$OUT.part" "$OUT"',
    ].join('\n');
    await run('sh', ['-c', script], {
      env: { ...process.env, R: rootfs, NODE: node, NPM: npm, CA: caFile ?? '', OUT: join(work, 'out.tar') },
      timeout: 300_000,
    });
    renameSync(join(work, 'out.tar'), tarball);
    return tarball;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
