import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestTls {
  /** The CA certificate's file, for NODE_EXTRA_CA_CERTS of a process that must trust the server. */
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

/**
 * A throwaway certificate authority and a server certificate for `names` (DNS names and IP
 * addresses), generated at run time with the openssl CLI: tests serve real HTTPS without a
 * committed key.
 */
export function createTestTls(names: string[]): TestTls {
  const dir = mkdtempSync(path.join(tmpdir(), 'sheetgate-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const subjectAltName = names
    .map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`))
    .join(',');
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=Sheetgate test CA',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
    );
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      `/CN=${names[0]}`,
      '-keyout',
      file('server.key'),
      '-out',
      file('server.csr'),
    );
    writeFileSync(file('server.ext'), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`);
    openssl(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      file('server.ext'),
      '-out',
      file('server.pem'),
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`generating test certificates needs the openssl CLI: ${(error as Error).message}`);
  }
  return {
    caFile: file('ca.pem'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
