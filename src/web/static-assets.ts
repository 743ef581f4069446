import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** One file of the web interface, held in memory with its gzip form and its entity tag. */
export interface StaticAsset {
  /** URL path, e.g. `/app.js`; index.html is served as `/`. */
  urlPath: string;
  contentType: string;
  body: Buffer;
  /** gzip form, or undefined when compression would not make the file smaller. */
  gzip: Buffer | undefined;
  /** Strong validator (RFC 9110 §8.8.3): a hash of the identity body, quoted. */
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Where the build puts the web interface: dist/src/web/ui beside this compiled module. Run from
 * source (tsx), this module sits in src/web, whose ui folder holds the TypeScript; the built files
 * are then taken from dist.
 */
export function defaultUiDirectory(): string {
  const here = fileURLToPath(import.meta.url);
  const root = join(dirname(here), '..', '..');
  return here.endsWith('.ts') ? join(root, 'dist', 'src', 'web', 'ui') : join(dirname(here), 'ui');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function assetOf(dir: string, path: string, contentType: string): StaticAsset {
  const body = readFileSync(path);
  const packed = gzipSync(body, { level: 9 });
  const name = relative(dir, path).split(sep).join('/');
  return {
    urlPath: name === 'index.html' ? '/' : `/${name}`,
    contentType,
    body,
    gzip: packed.length < body.length ? packed : undefined,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/**
 * Reads the built web interface (HTML, scripts, styles; source maps and type declarations are left
 * out) into memory once: a few files of some kilobytes, served without a disk read per request.
 * Returns an empty list when the directory does not exist (interface not built).
 */
export function loadStaticAssets(dir: string = defaultUiDirectory()): StaticAsset[] {
  if (!existsSync(dir)) return [];
  return filesUnder(dir)
    .sort()
    .flatMap((path) => {
      const contentType = CONTENT_TYPES[extname(path)];
      return contentType && !path.endsWith('.d.ts') ? [assetOf(dir, path, contentType)] : [];
    });
}
