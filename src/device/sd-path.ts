import { lstat, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** Where a request path under /sdcard/ leads, or why it leads nowhere. */
export type SdPathResult =
  | {
      ok: true;
      /** The real path of the target (symlinks resolved), inside the root. */
      path: string;
      /** The path relative to the root as the listing shows it: '/', '/2025-01-01.csv', '/sub/'. */
      display: string;
      /** The request ended in '/': a directory listing is wanted. */
      directory: boolean;
      /** The target is the root itself. */
      root: boolean;
    }
  | { ok: false; status: 400 | 404; reason: string };

type Refused = { ok: false; status: 400 | 404; reason: string };

const refused = (status: 400 | 404, reason: string): Refused => ({
  ok: false,
  status,
  reason,
});

/**
 * Resolves the still percent-encoded rest of a /sdcard/ request path inside `root`. It is decoded
 * exactly once (a double-encoded `%252e` stays the literal name `%2e`); NUL, backslashes, empty,
 * `.` and `..` segments are refused, and the target's real path (symlinks resolved) must be the
 * root or lie below it, so no path reaches anything outside. The target must exist.
 */
export async function resolveSdPath(root: string, encoded: string): Promise<SdPathResult> {
  const parsed = segmentsOf(encoded);
  if (!parsed.ok) return parsed;
  const { segments, directory } = parsed;
  const real = await realUnder(root, segments);
  return real.ok ? found(real.realRoot, real.path, directory) : real;
}

/** The real root and the real path of `segments` below it; refused when missing or outside. */
async function realUnder(
  root: string,
  segments: readonly string[],
): Promise<{ ok: true; realRoot: string; path: string } | Refused> {
  let realRoot: string;
  let path: string;
  try {
    realRoot = await realpath(root);
    path = await realpath(join(realRoot, ...segments));
  } catch {
    return refused(404, 'no such file or directory');
  }
  if (!inside(realRoot, path)) return refused(404, 'path leaves the SD card folder');
  return { ok: true, realRoot, path };
}

function inside(realRoot: string, path: string): boolean {
  return path === realRoot || path.startsWith(realRoot + sep);
}

function found(realRoot: string, path: string, directory: boolean): SdPathResult {
  const relative =
    path === realRoot
      ? ''
      : path
          .slice(realRoot.length + 1)
          .split(sep)
          .join('/');
  return {
    ok: true,
    path,
    display: `/${relative}${directory && relative !== '' ? '/' : ''}`,
    directory,
    root: path === realRoot,
  };
}

type Segments =
  { ok: true; segments: string[]; directory: boolean } | { ok: false; status: 400 | 404; reason: string };

/** The request path's segments, decoded once; refused as resolveSdPath describes. */
function segmentsOf(encoded: string): Segments {
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return refused(400, 'malformed percent-encoding');
  }
  if (decoded.includes('\0')) return refused(400, 'NUL in path');
  if (decoded.includes('\\')) return refused(400, 'backslash in path');
  const directory = decoded === '' || decoded.endsWith('/');
  const segments = directory ? decoded.slice(0, -1).split('/') : decoded.split('/');
  if (decoded === '') segments.length = 0;
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return refused(404, 'path leaves the SD card folder');
  return { ok: true, segments, directory };
}

/**
 * Like resolveSdPath, but for removing an entry: the entry itself, not what it points to. The
 * folder holding it is resolved (symlinks too) and must lie inside the root; the last segment is
 * the entry's own name there, so a symbolic link is the link (lstat), wherever, if anywhere, it
 * points. The entry must exist.
 */
export async function resolveSdEntry(
  root: string,
  encoded: string,
): Promise<SdPathResult & { link?: boolean }> {
  const parsed = segmentsOf(encoded);
  if (!parsed.ok) return parsed;
  const { segments, directory } = parsed;
  const name = segments.pop();
  const real = await realUnder(root, segments);
  if (!real.ok) return real;
  const { realRoot, path: parent } = real;
  if (name === undefined) return found(realRoot, parent, directory);
  const entry = join(parent, name);
  try {
    const stats = await lstat(entry);
    return { ...found(realRoot, entry, directory), link: stats.isSymbolicLink() };
  } catch {
    return refused(404, 'no such file or directory');
  }
}
