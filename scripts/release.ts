/**
 * npm run release [-- --out FILE]: builds an unsigned release bundle of this checkout (format in
 * src/device/update/bundle-format.ts) from the built app (run after `npm run build`): dist/src,
 * the launcher, the systemd files, package.json, package-lock.json and the production part of
 * node_modules as installed here (dev-only packages per package-lock.json are left out). Sign it
 * with `npm run sign -- --key <private key PEM> FILE`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeUnsignedBundle } from '../src/device/update/bundle-writer.js';
import { productionModuleFilter, type PackageLock } from '../src/device/update/production-files.js';

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package-lock.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package-lock.json not found above scripts/');
    dir = parent;
  }
  return dir;
}

async function main(argv: string[]): Promise<void> {
  const root = projectRoot();
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
  };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as PackageLock;
  const outIndex = argv.indexOf('--out');
  const out = resolve(
    outIndex >= 0 && argv[outIndex + 1]
      ? argv[outIndex + 1]!
      : join(root, 'dist', `meter-gateway-${manifest.version}.bin`),
  );
  const entry = manifest.bin['meter-gateway']!;
  for (const required of [entry, 'dist/scripts/launcher.js', 'node_modules']) {
    if (!existsSync(join(root, required)))
      throw new Error(`${required} is missing: run npm ci and npm run build first`);
  }
  const header = await writeUnsignedBundle({
    cwd: root,
    paths: [
      'package.json',
      'package-lock.json',
      'dist/src',
      'dist/scripts/launcher.js',
      'systemd',
      'node_modules',
    ],
    version: manifest.version,
    out,
    filter: productionModuleFilter(lock),
  });
  console.log(
    `${out}: meter-gateway ${header.version}, payload ${header.payloadLength} bytes, sha256 ${header.payloadSha256.toString('hex')} (unsigned)`,
  );
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`release: ${error.message}`);
  process.exitCode = 1;
});
