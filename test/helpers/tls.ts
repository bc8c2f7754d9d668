// Certificates for the TLS tests, made by the system's openssl (the tests that need one are skipped
// where it is missing).

import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const opensslMissing = spawnSync('openssl', ['version']).status !== 0;

/** Writes a self-signed P-256 certificate for localhost and 127.0.0.1, valid for a day, and its key into `dir`. */
export function writeSelfSignedCertificate(dir: string): { keyFile: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost'.split(' '),
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile };
}

/**
 * A certificate authority made for one test and a certificate it signed for localhost and 127.0.0.1
 * (P-256, a day), written into `dir`: the CA is what a client must be told to trust.
 */
export function writeCaAndCertificate(dir: string): { caFile: string; keyFile: string; certFile: string } {
  const caKey = join(dir, 'ca-key.pem');
  const caFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'server-key.pem');
  const csr = join(dir, 'server.csr');
  const certFile = join(dir, 'server.pem');
  const ext = join(dir, 'server.ext');
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  run([
    ...'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=vexil-test-ca'.split(' '),
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ...['-keyout', caKey, '-out', caFile],
  ]);
  run([
    ...'req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost'.split(' '),
    ...['-keyout', keyFile, '-out', csr],
  ]);
  writeFileSync(ext, 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  run([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    ext,
    '-out',
    certFile,
  ]);
  return { caFile, keyFile, certFile };
}
