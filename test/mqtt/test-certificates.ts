import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A throw-away PKI made by openssl at test time: a CA, a broker certificate for IP 127.0.0.1 only,
 * a client certificate (plain and passphrase-encrypted key) and an unrelated second CA. Files are
 * world-readable because mosquitto runs as its own user.
 */
export interface TestPki {
  caPem: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertPem: string;
  clientKeyPem: string;
  clientKeyEncryptedPem: string;
  passphrase: string;
  otherCaPem: string;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function selfSignedCa(dir: string, name: string, subject: string): void {
  openssl(dir, [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    subject,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function signedLeaf(dir: string, name: string, subject: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

export function createTestPki(dir: string): TestPki {
  selfSignedCa(dir, 'ca', '/CN=meter-gateway test CA');
  selfSignedCa(dir, 'other-ca', '/CN=unrelated test CA');
  signedLeaf(
    dir,
    'server',
    '/CN=test broker',
    'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  signedLeaf(
    dir,
    'client',
    '/CN=meter-gateway test client',
    'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n',
  );
  const passphrase = 'correct horse battery';
  openssl(dir, [
    'pkey',
    '-in',
    'client.key',
    '-aes-256-cbc',
    '-passout',
    `pass:${passphrase}`,
    '-out',
    'client-encrypted.key',
  ]);
  for (const file of ['ca.crt', 'server.crt', 'server.key']) chmodSync(join(dir, file), 0o644);
  const read = (file: string): string => readFileSync(join(dir, file), 'utf8');
  return {
    caPem: read('ca.crt'),
    caFile: join(dir, 'ca.crt'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertPem: read('client.crt'),
    clientKeyPem: read('client.key'),
    clientKeyEncryptedPem: read('client-encrypted.key'),
    passphrase,
    otherCaPem: read('other-ca.crt'),
  };
}
