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

/**
 * `count` different ports nobody listens on right now: every probe stays open until all are
 * chosen, so the OS cannot hand the same port out twice (as one `freePort` after another may).
 */
export async function freePorts(count: number): Promise<number[]> {
  const probes = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const probe = net.createServer();
          probe.once('error', reject);
          probe.listen(0, '127.0.0.1', () => resolve(probe));
        }),
    ),
  );
  const ports = probes.map((probe) => (probe.address() as net.AddressInfo).port);
  await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  return ports;
}

export interface RunningService extends ChildService {
  url: string;
}

export interface StartServiceOptions {
  /**
   * What "started" means: `/readyz` answering 200 (the default), or only `/healthz` for a test that
   * starts a service whose dependencies are down on purpose.
   */
  waitFor?: '/readyz' | '/healthz';
}

/**
 * Starts `services/<name>/src/main.ts` as a real process with `env` (on top of a minimal
 * environment) and waits for its `/readyz`. Its metrics listener gets a free port unless `env`
 * names one (`<NAME>_METRICS_PORT`), so services started side by side never collide.
 */
export async function startServiceProcess(
  name: 'auth' | 'mcp' | 'web',
  env: Record<string, string>,
  port: number,
  options: StartServiceOptions = {},
): Promise<RunningService> {
  const metricsPortSetting = `${name.toUpperCase()}_METRICS_PORT`;
  const child = spawnService(
    name,
    path.join(repoRoot, `services/${name}/src/main.ts`),
    { PATH: process.env.PATH, [metricsPortSetting]: String(await freePort()), ...env },
    { echo: false },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}${options.waitFor ?? '/readyz'}`, child, 30_000);
  } catch (error) {
    await child.stop();
    throw new Error(`${(error as Error).message}\n${child.output.join('\n')}`);
  }
  return { ...child, url };
}
