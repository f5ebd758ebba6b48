import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@sheetgate/service-runtime';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpService } from '../src/service.ts';
import { mcpSettingsSchema } from '../src/settings.ts';
import { type McpUnderTest, postReadRange, startMcpUnderTest } from './support/stack.ts';

// The MCP service assembled in this process (exactly as main.ts assembles it, against the real auth
// and Google emulator processes) so the test can look at what it keeps between requests: the
// requests not yet answered and the method handlers still running.

let stack: McpUnderTest;
let token: string;
let spreadsheetId: string;
const services: Array<{ service: Awaited<ReturnType<typeof createMcpService>>; server: http.Server }> = [];

async function startInProcess(requestTimeoutSeconds = 120) {
  const settings = mcpSettingsSchema.parse({
    BASE_URL: stack.baseUrl,
    AUTH_INTERNAL_URL: stack.auth.url,
    AUTH_GRPC_ADDRESS: stack.grpcAddress,
    INTERNAL_SERVICE_TOKEN: stack.serviceToken,
    GOOGLE_EMULATOR_URL: stack.emulatorUrl,
    MCP_REQUEST_TIMEOUT_SECONDS: String(requestTimeoutSeconds),
    LOG_LEVEL: 'silent',
  });
  const service = await createMcpService(settings, createLogger({ service: 'mcp', level: 'silent' }));
  const server = http.createServer(service.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  services.push({ service, server });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`,
    inFlight: () => service.mcp.inFlight,
    runningHandlers: () => service.mcp.running,
  };
}

const UNTIL_MS = 10_000;
/**
 * How long the emulator holds the Google call: longer than `until` waits, so the handler can only
 * leave the tables by being cancelled, never by its Google call finishing on its own.
 */
const GOOGLE_HELD_MS = 3 * UNTIL_MS;

async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + UNTIL_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const readRange = (url: string, id: number, signal?: AbortSignal) =>
  postReadRange(url, token, { spreadsheetId, range: 'Sheet1!A1:B2', id, ...(signal ? { signal } : {}) });

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  token = await stack.sign({ sub: userId });
  const seeded = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice@example.com', files: [{ name: 'Leaks', values: [['a', 'b']] }] }),
  });
  spreadsheetId = ((await seeded.json()) as { files: Array<{ id: string }> }).files[0]!.id;
});
afterAll(async () => {
  for (const { service, server } of services) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  }
  await stack?.stop();
});

describe('nothing outlives its request in the shared server', () => {
  it('a client that disconnects mid-call leaves no request in flight and no handler running', async () => {
    const mcp = await startInProcess();
    await stack.fault({ match: 'sheets.spreadsheets.values.get', latencyMs: GOOGLE_HELD_MS, count: 1 });
    const abort = new AbortController();
    const pending = readRange(mcp.url, 1, abort.signal).catch((error: unknown) => error);
    await until(() => mcp.inFlight() === 1 && mcp.runningHandlers() === 1, 'the call is running');
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    await until(() => mcp.inFlight() === 0, 'the call is no longer in flight');
    // The handler was cancelled (its Google request aborted), not left to run for nobody.
    await until(() => mcp.runningHandlers() === 0, 'the handler finished');
    await stack.clearFaults();
  });

  it('a call that times out is answered with an error and leaves nothing behind', async () => {
    const mcp = await startInProcess(1);
    await stack.fault({ match: 'sheets.spreadsheets.values.get', latencyMs: GOOGLE_HELD_MS, count: 1 });
    const response = await readRange(mcp.url, 7);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toMatchObject({ id: 7, error: { code: -32603, message: /timed out/ } });
    expect(mcp.inFlight()).toBe(0);
    await until(() => mcp.runningHandlers() === 0, 'the handler finished');
    await stack.clearFaults();
  });

  it('many concurrent calls of one person, all with id 1, leave nothing in flight or running once answered', async () => {
    const mcp = await startInProcess();
    // The first four hold their Google slots for a while: 16 more may wait for one, the rest are
    // refused at once (the per-user queue is bounded).
    await stack.fault({ match: 'sheets.spreadsheets.values.get', latencyMs: 1_000, count: 4 });
    const replies = await Promise.all(
      Array.from({ length: 24 }, () => readRange(mcp.url, 1).then((response) => readJson(response))),
    );
    expect(replies.every((reply) => reply.id === 1)).toBe(true);
    const answered = replies.filter((reply) => !reply.result.isError);
    const refused = replies.filter((reply) => reply.result.isError);
    for (const reply of answered) expect(reply.result.structuredContent.values).toEqual([['a', 'b']]);
    expect(answered).toHaveLength(20);
    for (const reply of refused)
      expect(reply.result.content[0].text).toMatch(/Too many Google calls at once/);
    expect(mcp.inFlight()).toBe(0);
    expect(mcp.runningHandlers()).toBe(0);
  });
});
