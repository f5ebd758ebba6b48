import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Secrets a laptop stack needs that must survive restarts (else stored tokens become unreadable). */
export interface LocalSecrets {
  AUTH_ENCRYPTION_KEYS: string;
  API_KEY_PEPPER: string;
  AUTH_COOKIE_KEYS: string;
}

/** Fresh random secrets of the shapes auth's settings expect. */
export function generateLocalSecrets(): LocalSecrets {
  return {
    AUTH_ENCRYPTION_KEYS: `local1:${randomBytes(32).toString('base64')}`,
    API_KEY_PEPPER: randomBytes(32).toString('base64url'),
    AUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'),
  };
}

/**
 * Reads `$DATA_DIR/local-secrets.json`, creating it (mode 0600) on first start. Only for the
 * local stack: operators give these as Kubernetes Secrets.
 */
export async function loadOrCreateLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  const file = path.join(dataDir, 'local-secrets.json');
  try {
    return { ...generateLocalSecrets(), ...JSON.parse(await readFile(file, 'utf8')) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets = generateLocalSecrets();
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
