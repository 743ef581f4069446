import { posix } from 'node:path';

/** The parts of package-lock.json (lockfileVersion 2 and 3) this needs. */
export interface PackageLock {
  lockfileVersion?: number;
  packages?: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; link?: boolean }>;
}

/** Package directory a path under node_modules belongs to: node_modules/a/node_modules/@s/b/x -> .../@s/b */
export function packageDirOf(path: string): string | undefined {
  const parts = posix.normalize(path).split('/');
  let end = -1;
  for (let index = 0; index < parts.length; index++) {
    if (parts[index] !== 'node_modules' || index + 1 >= parts.length) continue;
    const name = parts[index + 1]!;
    if (name.startsWith('@')) {
      if (index + 2 >= parts.length) return undefined;
      end = index + 3;
    } else {
      end = index + 2;
    }
    index = end - 1;
  }
  return end < 0 ? undefined : parts.slice(0, end).join('/');
}

/** A package of the lock that production code needs: not dev-only (`dev: true`) and not a link. */
function isProduction(packages: NonNullable<PackageLock['packages']>, dir: string): boolean {
  const entry = packages[dir];
  return entry !== undefined && entry.dev !== true && entry.link !== true;
}

/**
 * tar filter for the release payload: a path under node_modules is packed only when the package
 * it belongs to is in package-lock.json and not dev-only (`dev: true`); a directory above packages
 * (a scope, a nested node_modules) only when it holds a production package. A `devOptional`
 * package is an optional dependency of production code and is kept. npm's own files (.bin, .cache,
 * .package-lock.json) and packages absent from the lock (extraneous) are left out.
 */
export function productionModuleFilter(lock: PackageLock): (path: string) => boolean {
  const packages = lock.packages ?? {};
  /** Directories above production packages (node_modules/@scope, node_modules/a/node_modules ...). */
  const ancestors = new Set<string>();
  for (const dir of Object.keys(packages).filter((dir) => isProduction(packages, dir))) {
    const parts = dir.split('/');
    for (let length = 1; length < parts.length; length++) ancestors.add(parts.slice(0, length).join('/'));
  }
  return (path) => {
    const normal = posix.normalize(path.replace(/^\.\//, '')).replace(/\/$/, '');
    if (normal !== 'node_modules' && !normal.startsWith('node_modules/')) return true;
    const parts = normal.split('/');
    const last = parts[parts.length - 1]!;
    if (last === '.bin' || last === '.cache' || last === '.package-lock.json') return false;
    const dir = packageDirOf(normal);
    if (dir === undefined) return ancestors.has(normal);
    return isProduction(packages, dir);
  };
}

/**
 * The directories to copy for the production part of node_modules (install.sh from a checkout):
 * each production package of the lock (as productionModuleFilter decides) that has no production
 * package above it, since copying a package copies the packages nested in it.
 */
export function productionPackageRoots(lock: PackageLock): string[] {
  const packages = lock.packages ?? {};
  const production = new Set(
    Object.keys(packages).filter((dir) => dir.startsWith('node_modules/') && isProduction(packages, dir)),
  );
  const hasProductionAbove = (dir: string) => {
    const levels = dir.split('/node_modules/');
    return levels
      .slice(1)
      .some((_, depth) => production.has(levels.slice(0, depth + 1).join('/node_modules/')));
  };
  return [...production].filter((dir) => !hasProductionAbove(dir)).sort();
}
