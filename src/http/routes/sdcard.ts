import { contract } from '../contract-ref.js';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { readdir, realpath, rm, stat, unlink } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { AppContext } from '../../context.js';
import { sdCardRoot } from '../../device/sd-card.js';
import { resolveSdEntry, resolveSdPath } from '../../device/sd-path.js';
import { ERROR_REF } from '../api-schemas.js';
import { HttpError } from '../errors.js';
import { sendJson, sendNoContent } from '../respond.js';
import { TAIL_PARAMETER, type ApiRequest, type Router } from '../router.js';
import { sendFile } from '../sd-file-response.js';
import type { DirectoryEntry, DirectoryListing } from '../../contracts/sdcard.js';

const ROOT_PATH = '/sdcard';
const PREFIX = '/sdcard/';

/**
 * Entries of a directory; symlinks count as what they point at when that lies inside the root and
 * are left out otherwise, as are sockets, devices and the like.
 */
async function listDirectory(root: string, directory: string): Promise<DirectoryEntry[]> {
  const entries: DirectoryEntry[] = [];
  for (const name of (await readdir(directory)).sort()) {
    const path = join(directory, name);
    try {
      const real = await realpath(path);
      if (real !== root && !real.startsWith(root + sep)) continue;
      const stats = await stat(real);
      if (!stats.isFile() && !stats.isDirectory()) continue;
      const dir = stats.isDirectory();
      entries.push({
        name: dir ? `${name}/` : name,
        size: dir ? 0 : stats.size,
        type: dir ? 'dir' : 'file',
        modified: stats.mtime.toISOString(),
      });
    } catch {
      // gone meanwhile, or a dangling link
    }
  }
  return entries;
}

function isRootListing(path: string): boolean {
  return path === ROOT_PATH || path === PREFIX;
}

async function resolved(ctx: AppContext, request: ApiRequest) {
  const root = sdCardRoot(ctx.config.config);
  const rest = request.path === ROOT_PATH ? '' : request.path.slice(PREFIX.length);
  const target = await resolveSdPath(root, rest);
  if (!target.ok) {
    const key = target.status === 400 ? 'bad_request' : 'not_found';
    throw new HttpError(target.status, key, `${request.path}: ${target.reason}`);
  }
  return { ...target, realRoot: await realpath(root) };
}

/** GET: a directory's listing ({path, files}) or a file's bytes (Range supported, sd-file-response.ts). */
async function sendSdEntry(ctx: AppContext, request: ApiRequest, response: ServerResponse): Promise<void> {
  const root = sdCardRoot(ctx.config.config);
  if (isRootListing(request.path) && !existsSync(root)) {
    // Nothing logged yet: the folder appears with the first CSV row or log line.
    sendJson(response, 200, { path: '/', files: [] } satisfies DirectoryListing);
    return;
  }
  const target = await resolved(ctx, request);
  const stats = await stat(target.path);
  if (target.directory || request.path === ROOT_PATH) {
    if (!stats.isDirectory()) throw new HttpError(404, 'not_found', `${request.path}: not a directory`);
    const listing: DirectoryListing = {
      path: target.display,
      files: await listDirectory(target.realRoot, target.path),
    };
    sendJson(response, 200, listing);
    return;
  }
  if (!stats.isFile()) throw new HttpError(404, 'not_found', `${request.path}: not a file`);
  await sendFile(request.raw, response, target.path, stats);
}

/** DELETE: a file, or a directory with everything below it (204); never the folder itself. */
async function deleteSdEntry(ctx: AppContext, request: ApiRequest, response: ServerResponse): Promise<void> {
  const rest = request.path.slice(PREFIX.length);
  const target = await resolveSdEntry(sdCardRoot(ctx.config.config), rest);
  if (!target.ok) {
    const key = target.status === 400 ? 'bad_request' : 'not_found';
    throw new HttpError(target.status, key, `${request.path}: ${target.reason}`);
  }
  if (target.root) throw new HttpError(400, 'bad_request', 'the SD card folder itself cannot be deleted');
  // The entry itself: a symbolic link is removed as a link, never what it points to
  // (docs/architecture.md#sd-card); rm removes links below a directory the same way.
  if (target.link === true) await unlink(target.path);
  else await rm(target.path, { recursive: true, force: false });
  ctx.logger.info(`sdcard: deleted ${target.display}`);
  sendNoContent(response);
}

/**
 * The SD card folder over HTTP (docs/architecture.md#sd-card): GET /sdcard and a path ending in '/'
 * list a directory ({path, files}); any other path is the file's bytes; DELETE removes a file or a
 * directory with everything below it (204). Nothing outside the folder is reachable (sd-path.ts).
 * Authentication is the API's (the dispatcher checks it before any route).
 */
export function registerSdCardRoutes(router: Router, ctx: AppContext): void {
  const get = (request: ApiRequest, response: ServerResponse) => sendSdEntry(ctx, request, response);
  const bytes = { type: 'string', format: 'binary' };
  const listing = { 200: { description: 'directory listing', schema: contract('DirectoryListingSchema') } };
  const refused = (description: string) => ({ description, schema: ERROR_REF });
  router.add('GET', ROOT_PATH, get, {
    doc: {
      summary: 'List the SD card folder',
      responses: listing,
    },
  });
  router.add('GET', `${PREFIX}${TAIL_PARAMETER}`, get, {
    doc: {
      summary: "A file's bytes (Range supported), or a directory listing when the path ends in '/'",
      responses: {
        200: {
          ...listing[200],
          description: 'directory listing, or the whole file',
          alternatives: { 'text/csv': bytes, 'application/octet-stream': bytes },
        },
        206: {
          description: 'the requested byte range',
          schema: bytes,
          contentType: 'application/octet-stream',
          alternatives: { 'text/csv': bytes },
        },
        400: refused('malformed path (NUL, backslash, bad percent-encoding)'),
        404: refused('no such file, or outside the SD card folder'),
        416: { description: 'range past the end of the file' },
      },
    },
  });
  router.add(
    'DELETE',
    `${PREFIX}${TAIL_PARAMETER}`,
    (request, response) => deleteSdEntry(ctx, request, response),
    {
      doc: {
        summary: 'Delete a file, or a directory with everything below it',
        responses: {
          204: { description: 'deleted' },
          400: refused('malformed path, or the folder itself'),
          404: refused('no such file, or outside the SD card folder'),
        },
      },
    },
  );
}
