import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  createTestDatabase,
  readJson,
  repoRoot,
  type Stack,
  stackPorts,
  startStack,
  type TestDatabase,
} from '@sheetgate/test-harness';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, signIn } from './support/people.ts';

function portIsListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * One request on `agent`, its body (if any) written in 64 KiB pieces; the status, or the socket
 * error the client got instead (a reset connection shows here, not as a status).
 */
function sendOnce(
  agent: http.Agent,
  url: string,
  options: { headers?: Record<string, string>; bodyBytes?: number; chunked?: boolean } = {},
): Promise<{ status?: number; error?: string }> {
  const size = options.bodyBytes;
  return new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: size === undefined ? 'GET' : 'POST',
        agent,
        headers: {
          ...options.headers,
          ...(size !== undefined && !options.chunked ? { 'content-length': String(size) } : {}),
        },
      },
      (response) => {
        // The answer counts once it arrived whole, even if writing the rest of the body then
        // fails (a refused body's connection may close while the client still sends).
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode! }));
        response.on('error', (error) =>
          resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }),
        );
      },
    );
    request.on('error', (error) =>
      resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }),
    );
    if (size === undefined) return void request.end();
    const piece = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const part = piece.subarray(0, Math.min(piece.length, size - sent));
        sent += part.length;
        if (!request.write(part)) return void request.once('drain', write);
      }
      request.end();
    };
    write();
  });
}

describe('pnpm start with embedded defaults (no DATABASE_URL, REDIS_URL or Google credentials)', () => {
  let stack: Stack;
  let apiKey = '';
  afterAll(async () => {
    await stack?.stop();
  });

  it('prints the ready line with the base URL', async () => {
    stack = await startStack({ DATABASE_URL: '', REDIS_URL: '' });
    expect(stack.output.join('')).toContain(`Sheetgate ready at ${stack.baseUrl}`);
    expect(stack.output.join('')).toContain('embedded PostgreSQL (PGlite)');
    // A clean start: mcp waiting for auth and the embedded defaults are said at info, nothing
    // warned, no stack trace.
    expect(stack.output.join('')).not.toMatch(/"level":"(?:warn|error|fatal)"/);
    expect(stack.output.join('')).not.toContain('    at ');
  });

  it('routes each public path to its service through the gateway', async () => {
    const discovery = await fetch(`${stack.baseUrl}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect((await readJson(discovery)).issuer).toBe(stack.baseUrl);

    const metadata = await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);
    expect(metadata.status).toBe(200);
    expect((await readJson(metadata)).resource).toBe(`${stack.baseUrl}/api/mcp`);

    const mcp = await fetch(`${stack.baseUrl}/api/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect((await fetch(`${stack.baseUrl}/api/mcp`)).status).toBe(405);

    const jwks = await fetch(`${stack.baseUrl}/api/auth/jwks`);
    expect((await readJson(jwks)).keys.length).toBeGreaterThan(0);

    const login = await fetch(`${stack.baseUrl}/login`);
    expect(login.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const unknown = await fetch(`${stack.baseUrl}/.well-known/nothing`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/json');
  });

  it('answers /healthz and /readyz on each service’s own port, never through the gateway', async () => {
    for (const probe of ['/healthz', '/readyz']) {
      const publicly = await fetch(`${stack.baseUrl}${probe}`);
      expect(publicly.status, probe).toBe(404);
      expect(await readJson(publicly)).toEqual({
        error: 'not_found',
        error_description: 'nothing is served at this path',
      });
      for (const port of ['AUTH_PORT', 'MCP_PORT', 'WEB_PORT'])
        expect((await fetch(`http://127.0.0.1:${stack.ports[port]}${probe}`)).status, `${port}${probe}`).toBe(
          200,
        );
    }
  });

  it('serves the Google emulator on GOOGLE_EMULATOR_PORT', async () => {
    const discovery = await fetch(`${stack.emulatorUrl}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect((await readJson(discovery)).authorization_endpoint).toContain(
      `:${stack.ports.GOOGLE_EMULATOR_PORT}/`,
    );
  });

  it.each([
    // Several rounds where timing decides whether mcp answers before the body is through; the
    // chunked one 30 times (cheap), since whether the gateway's own 413 or mcp's 401 comes first is
    // a race its answer must not depend on.
    ['an early 401 to a 1.8 MiB body', 'none', 1.8, false, 401, 3],
    ['an early 401 to a 9 MiB chunked body', 'none', 9, true, [401, 413], 30],
    // Past mcp's 4 MiB limit, within the 8 MiB every hop passes: mcp reads it and answers.
    ["mcp's 413 to a 5 MiB body", 'key', 5, false, 413, 1],
    ["mcp's 413 to a 5 MiB chunked body", 'key', 5, true, 413, 1],
    // Past the 8 MiB ceiling: refused unread, closing mid-body (was a 502).
    ['a 9 MiB body', 'key', 9, false, 413, 1],
    ['a 9 MiB chunked body', 'key', 9, true, 413, 1],
  ] as const)(
    'answers %s through the gateway and keeps the client connection usable',
    async (_name, credential, mebibytes, chunked, status, rounds) => {
      if (credential === 'key' && !apiKey) {
        const { sessionCookie } = await signIn(stack, 'alice@example.com');
        apiKey = (await createApiKey(stack, sessionCookie)).secret;
      }
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let round = 0; round < rounds; round++) {
          const answer = await sendOnce(agent, `${stack.baseUrl}/api/mcp`, {
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              ...(credential === 'key' ? { 'x-api-key': apiKey } : {}),
            },
            bodyBytes: Math.floor(mebibytes * 1024 * 1024),
            chunked,
          });
          expect([status].flat(), JSON.stringify(answer)).toContain(answer.status);
          const next = await sendOnce(agent, `${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);
          expect(next.status, JSON.stringify(next)).toBe(200);
        }
      } finally {
        agent.destroy();
      }
    },
  );

  it('stops every process on Ctrl-C', async () => {
    expect(await stack.stop()).toBe(0);
    for (const name of [
      'PORT',
      'AUTH_PORT',
      'MCP_PORT',
      'WEB_PORT',
      'AUTH_GRPC_PORT',
      'GOOGLE_EMULATOR_PORT',
    ]) {
      expect(await portIsListening(stack.ports[name]!), `${name} still listening`).toBe(false);
    }
  });
});

describe('pnpm start run by pnpm, stopped with Ctrl-C', () => {
  it('prints where the time went with --timings, and a Ctrl-C to the terminal ends it cleanly with exit 0', async () => {
    const ports = await stackPorts();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-pnpm-start-'));
    const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    // pnpm in its own process group, as a terminal runs it: Ctrl-C signals the whole group.
    const child = spawn('pnpm', ['start', '--timings'], {
      cwd: repoRoot,
      detached: true,
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      },
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const done = (error?: Error) => {
          clearInterval(check);
          clearTimeout(deadline);
          if (error) reject(error);
          else resolve();
        };
        const check = setInterval(() => {
          if (output.includes('Sheetgate ready at')) done();
        }, 50);
        const deadline = setTimeout(() => done(new Error(`no ready line after 120 s:\n${output}`)), 120_000);
        void exited.then(() => done(new Error(`pnpm start exited before it was ready:\n${output}`)));
      });
      const parts = [
        'services started',
        'auth ready',
        'mcp ready',
        'web ready',
        'google ready',
        'gateway listening',
      ];
      if (!database) parts.push('embedded PostgreSQL open');
      for (const part of parts) expect(output).toMatch(new RegExp(`\\[start\\] +\\d+\\.\\d\\d s  ${part}`));
      // A new data folder is a copy of the template `pnpm install` made (no initdb at start).
      if (!database) expect(output).toContain('[start] new database copied from the template in ');
      // The launcher and the services run from the bundles `pnpm install` made (service-bundles.ts):
      // none is made again at start, and none falls back to its sources.
      expect(output).not.toMatch(/\[start\] (bundled|could not bundle)/);
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('[start] stopped');
      expect(output).not.toContain('ELIFECYCLE');
      expect(await portIsListening(ports.PORT!)).toBe(false);
      expect(await portIsListening(ports.AUTH_PORT!)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      await database?.close();
    }
  }, 180_000);
});

describe('pnpm start with a real PostgreSQL', () => {
  let database: TestDatabase;
  afterAll(async () => {
    await database?.close();
  });

  it('uses DATABASE_URL instead of the embedded database', async () => {
    database = await createTestDatabase();
    const stack = await startStack({ DATABASE_URL: database.url });
    try {
      expect(stack.output.join('')).not.toContain('embedded PostgreSQL');
      expect((await fetch(`http://127.0.0.1:${stack.ports.AUTH_PORT}/readyz`)).status).toBe(200);
    } finally {
      expect(await stack.stop()).toBe(0);
    }
  });
});

/** Runs `pnpm start`'s launcher with `env` on top of free ports, expecting it to refuse to start. */
async function startRefused(ports: Record<string, number>, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [path.join(repoRoot, 'packages/local-stack/src/start.js')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      ...env,
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  return { code, stderr: stderr.trim() };
}

describe('pnpm start when a port is taken', () => {
  it('says which port and which setting, and starts nothing', async () => {
    const ports = await stackPorts();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(ports.MCP_PORT, '127.0.0.1', resolve));
    try {
      expect(await startRefused(ports)).toEqual({
        code: 1,
        stderr: `start: port ${ports.MCP_PORT} (MCP_PORT) is already in use: stop what uses it or set MCP_PORT`,
      });
      expect(await portIsListening(ports.PORT!)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('says which settings share a port, and starts nothing', async () => {
    const ports = await stackPorts();
    expect(await startRefused(ports, { WEB_PORT: String(ports.AUTH_PORT) })).toEqual({
      code: 1,
      stderr: `start: AUTH_PORT, WEB_PORT share port ${ports.AUTH_PORT}: each part needs a port of its own`,
    });
    expect(await portIsListening(ports.PORT!)).toBe(false);
  });
});
