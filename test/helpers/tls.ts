// Certificates for the TLS tests, made by the system's openssl (the tests that need one are skipped
// where it is missing).

import { execFileSync, spawnSync } from 'node:child_process';
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
