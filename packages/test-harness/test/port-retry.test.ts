import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listensOn } from '../src/port-owner.ts';
import { PortTakenError, takenPortsIn, withFreePorts } from '../src/port-retry.ts';
import { freePort } from '../src/ports.ts';
import { type RunningService, repoRoot, startProcess, startServiceProcess } from '../src/processes.ts';

// A port picked for a process can be taken before the process binds it. Here the taker is what
// it most likely is in a test run: another test's server, answering every path with 200.

const takers: http.Server[] = [];
const started: RunningService[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((service) => service.stop()));
  await Promise.all(takers.splice(0).map((taker) => new Promise((resolve) => taker.close(resolve))));
});

/** Another process's server on `port`, answering 200 to everything (a `/readyz` included). */
async function take(port: number): Promise<void> {
  const taker = http.createServer((_request, response) => response.end('{"status":"ready"}'));
  taker.listen(port, '127.0.0.1');
  await once(taker, 'listening');
  takers.push(taker);
}

/** The Google emulator (a small Node server with its own start-up) on `port`. */
async function startEmulator(port: number): Promise<RunningService> {
  const emulator = await startProcess({
    name: 'google-emulator',
    entry: path.join(repoRoot, 'packages/google-emulator/src/main.ts'),
    env: { PATH: process.env.PATH, GOOGLE_EMULATOR_PORT: String(port), LOG_LEVEL: 'warn' },
    port,
    readyPath: '/healthz',
    ports: [port],
  });
  started.push(emulator);
  return emulator;
}

describe('a process whose port was taken before it bound it', () => {
  it('is not taken for ready on the taker’s answer: its start fails with PortTakenError', async () => {
    const port = await freePort();
    await take(port);
    const failure = await startEmulator(port).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PortTakenError);
    expect((failure as PortTakenError).ports).toEqual([port]);
  });

  it('starts on other ports under withFreePorts, the first ones taken before it bound them', async () => {
    const tried: number[] = [];
    const emulator = await withFreePorts(1, async ([port]) => {
      tried.push(port!);
      if (tried.length === 1) await take(port!);
      return startEmulator(port!);
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(tried[0]);
    expect(emulator.url).toBe(`http://127.0.0.1:${tried[1]}`);
    expect(await listensOn(emulator.process.pid!, tried[1]!)).toBe(true);
    expect((await fetch(`${emulator.url}/healthz`)).status).toBe(200);
  });

  it('is given up after the attempts allowed, with the last PortTakenError', async () => {
    let calls = 0;
    const failure = await withFreePorts(1, async ([port]) => {
      calls++;
      await take(port!);
      return startEmulator(port!);
    }).catch((error: unknown) => error);
    expect(calls).toBe(3);
    expect(failure).toBeInstanceOf(PortTakenError);
  });

  it('a service saying so, or saying nothing (LOG_LEVEL silent), fails with PortTakenError', async () => {
    for (const level of ['info', 'silent']) {
      const port = await freePort();
      await take(port);
      const env = {
        MCP_PORT: String(port),
        LOG_LEVEL: level,
        INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
        AUTH_GRPC_ADDRESS: `127.0.0.1:${await freePort()}`,
      };
      const failure = await startServiceProcess('mcp', env, port).catch((error: unknown) => error);
      expect(failure, level).toBeInstanceOf(PortTakenError);
      expect((failure as PortTakenError).ports, level).toEqual([port]);
    }
  });

  it('are read from what services, the launcher and Node say', () => {
    const service =
      '{"level":60,"msg":"auth could not start: port 23456 is already in use (set AUTH_PORT to another port, or stop what is using it)"}';
    const launcher = '[start] port 23457 (MCP_PORT) is already in use: stop what uses it or set MCP_PORT';
    const grpc =
      '{"msg":"mcp could not start: No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use 127.0.0.1:23458]","time":1765000000}';
    const ipv6 = 'Error: listen EADDRINUSE: address already in use ::1:23459';
    expect(takenPortsIn([service, launcher, grpc, ipv6].join('\n')).sort()).toEqual([
      23456, 23457, 23458, 23459,
    ]);
    expect(takenPortsIn('auth could not start: connect ECONNREFUSED 127.0.0.1:5432')).toEqual([]);
  });
});
