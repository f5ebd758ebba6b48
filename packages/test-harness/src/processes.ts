import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildService, spawnService, waitUntilReady } from '@sheetgate/local-stack';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface RunningService extends ChildService {
  url: string;
}

/**
 * Starts `services/<name>/src/main.ts` as a real process with `env` (on top of a minimal
 * environment) and waits for its `/readyz`.
 */
export async function startServiceProcess(
  name: 'auth' | 'mcp' | 'web',
  env: Record<string, string>,
  port: number,
): Promise<RunningService> {
  const child = spawnService(
    name,
    path.join(repoRoot, `services/${name}/src/main.ts`),
    { PATH: process.env.PATH, ...env },
    { echo: false },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}/readyz`, child, 30_000);
  } catch (error) {
    await child.stop();
    throw new Error(`${(error as Error).message}\n${child.output.join('\n')}`);
  }
  return { ...child, url };
}
