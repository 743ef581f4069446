import { constants } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../../context.js';
import { HttpError } from '../errors.js';
import { COMMON_HEADERS } from '../respond.js';
import type { Router } from '../router.js';

/**
 * The update machinery (multipart parsing, signature check, unpacking) loads with the first upload:
 * most daemons never receive one, and it would cost resident memory all the time.
 */
async function loadUpdater() {
  const [format, upload, install, layout] = await Promise.all([
    import('../../device/update/bundle-format.js'),
    import('../../device/update/upload.js'),
    import('../../device/update/release-install.js'),
    import('../../device/update/release-layout.js'),
  ]);
  return {
    BundleError: format.BundleError,
    trustedKeyOf: format.trustedKeyOf,
    isMultipartFormData: upload.isMultipartFormData,
    receiveUpload: upload.receiveUpload,
    installRelease: install.installRelease,
    detectInstallRoot: layout.detectInstallRoot,
  };
}

export interface UpdateOptions {
  /** Install root with releases/ and the current link; default: the one this code runs from. */
  installRoot?: string;
}

function httpErrorOf(
  error: unknown,
  BundleError: typeof import('../../device/update/bundle-format.js').BundleError,
): unknown {
  if (!(error instanceof BundleError)) return error;
  if (error.reason === 'too_large')
    return new HttpError(413, 'payload_too_large', error.message, { reason: error.reason });
  return new HttpError(400, 'bad_request', error.message, { reason: error.reason });
}

/**
 * The release installation this daemon can switch, or a 503 update_unavailable saying why not (a
 * daemon started from a clone with `npm start`, or a release directory it may not write).
 */
async function updatableRoot(installRoot: string | undefined): Promise<string> {
  if (!installRoot) {
    throw new HttpError(
      503,
      'update_unavailable',
      'this installation cannot be updated: the daemon does not run from a release installation (systemd/install.sh, systemd/README.md)',
    );
  }
  try {
    await access(join(installRoot, 'releases'), constants.W_OK);
    await access(installRoot, constants.W_OK);
  } catch (error) {
    throw new HttpError(
      503,
      'update_unavailable',
      `this installation cannot be updated: ${installRoot} is not writable by the daemon (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return installRoot;
}

/**
 * POST /load (docs/architecture.md#reboot-restore-update): a signed release bundle as the multipart part
 * `file`. 415 when not multipart/form-data, 413 beyond update.max_bytes or the free space, 400 when
 * verification fails (nothing changes), 409 while another upload or its restart is under way, 503
 * update_unavailable when a verified bundle cannot be installed here. A
 * verified bundle is unpacked beside the running version and switched to; 200 text/plain, then the
 * daemon restarts into it (the launcher rolls back when it never reports READY).
 */
export function registerUpdateRoutes(router: Router, ctx: AppContext, options: UpdateOptions = {}): void {
  let busy = false;
  router.add(
    'POST',
    '/load',
    async (request, response) => {
      const {
        BundleError,
        trustedKeyOf,
        isMultipartFormData,
        receiveUpload,
        installRelease,
        detectInstallRoot,
      } = await loadUpdater();
      if (busy) throw new HttpError(409, 'conflict', 'a firmware update is already in progress');
      if (!isMultipartFormData(request.raw.headers['content-type'])) {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'POST /load needs multipart/form-data with a part named "file"',
        );
      }
      busy = true;
      let restarting = false;
      const stagingDir = join(ctx.config.stateDirectory.dir, 'update');
      try {
        await rm(stagingDir, { recursive: true, force: true });
        const { update } = ctx.config.config;
        const bundle = await receiveUpload(request.raw, {
          stagingDir,
          maxBytes: update.max_bytes,
          trustedKey: trustedKeyOf(update.public_key),
        });
        // Verification first: a bundle that is not one is a 400 wherever the daemon runs.
        const installRoot = await updatableRoot(options.installRoot ?? detectInstallRoot());
        const release = await installRelease(bundle, installRoot);
        ctx.logger.info(`firmware ${release.version} installed as ${release.id}; restarting into it`);
        restarting = true;
        const text = `firmware ${release.version} verified and installed (${release.id}); restarting\n`;
        response.once('finish', () => ctx.requestRestart(`firmware update to ${release.version}`));
        response.writeHead(200, [
          'Content-Type',
          'text/plain; charset=utf-8',
          'Content-Length',
          String(Buffer.byteLength(text)),
          'Connection',
          'close',
          ...COMMON_HEADERS,
        ]);
        response.end(text);
      } catch (error) {
        if (error instanceof BundleError)
          ctx.logger.warn(`firmware upload refused: ${error.reason}: ${error.message}`);
        // Nothing of a refused upload stays behind (a verified payload that cannot be installed too).
        await rm(stagingDir, { recursive: true, force: true });
        throw httpErrorOf(error, BundleError);
      } finally {
        if (!restarting) busy = false;
      }
    },
    { body: 'stream' },
  );
}
