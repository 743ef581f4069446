/**
 * npm run sign -- --key <Ed25519 private key PEM> <bundle>: signs a release bundle in place
 * (appends the signature trailer, or replaces an existing one) after checking its payload checksum.
 * The key must live outside the repository. Prints the public key to put into update.public_key.
 *
 *   openssl genpkey -algorithm ed25519 -out ~/meter-gateway-release.pem
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signBundle } from '../src/device/update/bundle-writer.js';

function repositoryRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, '.git')) && !existsSync(join(dir, 'package-lock.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return dir;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function main(argv: string[]): Promise<void> {
  const keyIndex = argv.indexOf('--key');
  const keyPath = keyIndex >= 0 ? argv[keyIndex + 1] : undefined;
  const bundle = argv.filter((_arg, index) => index !== keyIndex && index !== keyIndex + 1)[0];
  if (!keyPath || !bundle) throw new Error('usage: npm run sign -- --key <private key PEM> <bundle>');
  const keyFile = realpathSync(resolve(keyPath));
  const repo = repositoryRoot();
  if (repo && isInside(keyFile, realpathSync(repo))) {
    throw new Error(`${keyFile} is inside the repository; keep release keys outside it`);
  }
  const privateKey = createPrivateKey(readFileSync(keyFile));
  const { header, keyId } = await signBundle(resolve(bundle), privateKey);
  console.log(
    `${bundle}: meter-gateway ${header.version} signed with key ${keyId.toString('hex').slice(0, 16)}`,
  );
  console.log('update.public_key for this key:');
  console.log(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString().trim());
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`sign: ${error.message}`);
  process.exitCode = 1;
});
