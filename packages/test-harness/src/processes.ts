import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildService, spawnService } from '@sheetgate/local-stack';
import { listensOn } from './port-owner.ts';
import { PortTakenError, portsTakenFrom } from './port-retry.ts';
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

export interface ProcessPlan {
  /** Names the process in its errors. */
  name: string;
  /** The Node entry point it runs. */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Where it answers `readyPath` with 200 once it is ready. */
  port: number;
  readyPath: string;
  /** Every port it binds (`port` included): those another process may take before it does. */
  ports: number[];
  timeoutMs?: number;
}

/**
 * Starts a Node process (its output kept, not echoed) and waits until it answers `readyPath` on
 * `port` with 200 and holds that port itself (an answer from whoever took the port is not its).
 * Exiting before that because a port it was given was taken rejects with a `PortTakenError`
 * (`withFreePorts` then starts it again on other ports); any other failure with its output.
 */
export async function startProcess(plan: ProcessPlan): Promise<RunningService> {
  const child = spawnService(plan.name, plan.entry, plan.env, { echo: false });
  // 'close' comes once its output has been read to the end, so the reason it exited is in it.
  const closed = new Promise<void>((resolve) => child.process.once('close', () => resolve()));
  const url = `http://127.0.0.1:${plan.port}`;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + (plan.timeoutMs ?? 30_000);
  while (!exited) {
    if ((await answers200(`${url}${plan.readyPath}`)) && (await listensOn(child.process.pid!, plan.port)))
      return { ...child, url };
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`${plan.name} was not ready at ${url}${plan.readyPath}:\n${child.output.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await closed;
  const output = child.output.join('\n');
  const taken = await portsTakenFrom(output, plan.ports);
  if (taken.length > 0) throw new PortTakenError(taken, output);
  throw new Error(`${plan.name} exited before it was ready:\n${output}`);
}

/** One probe without a kept-alive connection (none left open to a service a test stops). */
function answers200(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

/** The settings naming the ports each service binds besides its HTTP port. */
const otherPortSettings = {
  auth: ['AUTH_GRPC_PORT', 'AUTH_METRICS_PORT'],
  mcp: ['MCP_GRPC_PORT', 'MCP_METRICS_PORT'],
  web: ['WEB_METRICS_PORT'],
} as const;

/**
 * Starts `services/<name>/src/main.ts` as a real process with `env` (on top of a minimal
 * environment) and waits for its `/readyz` (`startProcess`). Its metrics listener (and mcp's gRPC
 * listener) gets a free port unless `env` names one (`<NAME>_METRICS_PORT`, `MCP_GRPC_PORT`), so
 * services started side by side never collide; should one of those be taken before the service
 * binds it, it is started again on another. Should `port` or another port `env` names be taken, it
 * rejects with a `PortTakenError`: the caller, who chose them, chooses again (`withFreePorts`).
 */
export async function startServiceProcess(
  name: 'auth' | 'mcp' | 'web',
  env: Record<string, string>,
  port: number,
  options: StartServiceOptions = {},
): Promise<RunningService> {
  const ownSettings = [
    `${name.toUpperCase()}_METRICS_PORT`,
    ...(name === 'mcp' ? ['MCP_GRPC_PORT'] : []),
  ].filter((setting) => env[setting] === undefined);
  for (let attempt = 1; ; attempt++) {
    const own: Record<string, string> = {};
    for (const setting of ownSettings) own[setting] = String(await freePort());
    const settings: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...own, ...env };
    try {
      return await startProcess({
        name,
        entry: path.join(repoRoot, `services/${name}/src/main.ts`),
        env: settings,
        port,
        readyPath: options.waitFor ?? '/readyz',
        ports: [port, ...otherPortSettings[name].flatMap((setting) => Number(settings[setting]) || [])],
      });
    } catch (error) {
      const ownPorts = Object.values(own).map(Number);
      const ownTaken =
        error instanceof PortTakenError && error.ports.every((taken) => ownPorts.includes(taken));
      if (!ownTaken || attempt >= 3) throw error;
    }
  }
}
