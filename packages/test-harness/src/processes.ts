import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildService, spawnService, waitUntilReady } from '@sheetgate/local-stack';
import { freePort } from './ports.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

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
 * environment) and waits for its `/readyz`. Its metrics listener (and mcp's gRPC listener) gets a
 * free port unless `env` names one (`<NAME>_METRICS_PORT`, `MCP_GRPC_PORT`), so services started
 * side by side never collide.
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
    {
      PATH: process.env.PATH,
      [metricsPortSetting]: String(await freePort()),
      // mcp's internal gRPC (the dashboard's Undo) likewise, unless `env` names it.
      ...(name === 'mcp' ? { MCP_GRPC_PORT: String(await freePort()) } : {}),
      ...env,
    },
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
