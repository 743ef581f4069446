import { mkdtemp, mkdir, readdir, readFile, rename, rm, stat, statfs } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { BundleError } from './bundle-format.js';
import type { VerifiedBundle } from './bundle-receiver.js';
import { CURRENT_LINK, linkTarget, PREVIOUS_LINK, RELEASES_DIR, switchLink } from './release-layout.js';

export interface InstalledRelease {
  id: string;
  version: string;
  dir: string;
  /** Link target `previous` now points to (the release that was running), if any. */
  previous: string | undefined;
}

/** tar reads its file in chunks of up to 16 MB by default; the Pi's memory is better spent elsewhere. */
const READ_CHUNK_BYTES = 64 * 1024;

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink']);

function escapes(path: string): boolean {
  const normal = posix.normalize(path);
  return isAbsolute(path) || normal === '..' || normal.startsWith('../');
}

/** tar is loaded with the first firmware upload, not by every daemon start (about 1.3 MB resident). */
function loadTar(): Promise<typeof import('tar')> {
  return import('tar');
}

/**
 * Lists the payload before anything is unpacked: only files, directories and symbolic links that
 * stay inside the release (no absolute paths, no '..', no link pointing out), and the unpacked size.
 */
async function inspectPayload(payloadPath: string): Promise<number> {
  const tar = await loadTar();
  let unpackedBytes = 0;
  const problems: string[] = [];
  try {
    await tar.t({
      file: payloadPath,
      strict: true,
      maxReadSize: READ_CHUNK_BYTES,
      onReadEntry: (entry) => {
        unpackedBytes += entry.size ?? 0;
        if (!ALLOWED_TYPES.has(entry.type))
          problems.push(`${entry.path}: entry type ${entry.type} not allowed`);
        if (escapes(entry.path)) problems.push(`${entry.path}: path leaves the release directory`);
        if (
          entry.type === 'SymbolicLink' &&
          escapes(posix.join(posix.dirname(entry.path), entry.linkpath ?? ''))
        ) {
          problems.push(`${entry.path}: link points outside the release`);
        }
      },
    });
  } catch (error) {
    throw new BundleError('bad_archive', `the payload is not a readable tar.gz: ${(error as Error).message}`);
  }
  if (problems.length > 0) throw new BundleError('bad_archive', problems.slice(0, 5).join('; '));
  return unpackedBytes;
}

/** The unpacked app must be this app at the version the header names, with its entry point. */
async function checkUnpackedApp(dir: string, version: string): Promise<void> {
  let manifest: { name?: unknown; version?: unknown; bin?: Record<string, unknown> };
  try {
    manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    throw new BundleError('bad_archive', 'the payload has no readable package.json');
  }
  if (manifest.name !== 'meter-gateway')
    throw new BundleError('bad_archive', 'the payload is not meter-gateway');
  if (manifest.version !== version) {
    throw new BundleError(
      'bad_archive',
      `package.json version ${String(manifest.version)} differs from the header's ${version}`,
    );
  }
  const entry = manifest.bin?.['meter-gateway'];
  if (
    typeof entry !== 'string' ||
    escapes(entry) ||
    !(await stat(join(dir, entry)).catch(() => undefined))?.isFile()
  ) {
    throw new BundleError(
      'bad_archive',
      'the payload lacks the entry point named by package.json bin.meter-gateway',
    );
  }
}

/** Removes every release but the ones `current` and `previous` name, and leftover staging dirs. */
async function pruneReleases(root: string): Promise<void> {
  const keep = new Set<string>();
  for (const name of [CURRENT_LINK, PREVIOUS_LINK]) {
    const target = await linkTarget(root, name);
    if (target) keep.add(posix.basename(target));
  }
  for (const name of await readdir(join(root, RELEASES_DIR))) {
    if (!keep.has(name)) await rm(join(root, RELEASES_DIR, name), { recursive: true, force: true });
  }
}

/**
 * Unpacks a verified bundle beside the running version and switches to it (layout in
 * release-layout.ts): `previous` takes the release that was current, `current` the new one. A bundle
 * that fails here leaves the install root as it was. The payload file is deleted either way.
 */
export async function installRelease(bundle: VerifiedBundle, root: string): Promise<InstalledRelease> {
  const { header, payloadPath } = bundle;
  const releases = join(root, RELEASES_DIR);
  let staging: string | undefined;
  try {
    await mkdir(releases, { recursive: true, mode: 0o755 });
    const unpackedBytes = await inspectPayload(payloadPath);
    const space = await statfs(releases);
    if (unpackedBytes > space.bavail * space.bsize) {
      throw new BundleError(
        'too_large',
        `unpacking needs ${unpackedBytes} bytes; ${space.bavail * space.bsize} are free`,
      );
    }
    staging = await mkdtemp(join(releases, '.staging-'));
    await (
      await loadTar()
    ).x({
      file: payloadPath,
      cwd: staging,
      strict: true,
      preserveOwner: false,
      maxReadSize: READ_CHUNK_BYTES,
    });
    await checkUnpackedApp(staging, header.version);
    const id = `${header.version}-${header.payloadSha256.toString('hex').slice(0, 12)}`;
    const dir = join(releases, id);
    if (await stat(dir).catch(() => undefined)) await rm(staging, { recursive: true, force: true });
    else await rename(staging, dir);
    staging = undefined;
    const target = `${RELEASES_DIR}/${id}`;
    const running = await linkTarget(root, CURRENT_LINK);
    if (running && running !== target) await switchLink(root, PREVIOUS_LINK, running);
    await switchLink(root, CURRENT_LINK, target);
    await pruneReleases(root);
    return { id, version: header.version, dir, previous: await linkTarget(root, PREVIOUS_LINK) };
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
    await rm(payloadPath, { force: true });
  }
}
