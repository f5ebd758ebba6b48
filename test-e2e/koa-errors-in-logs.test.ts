import net from 'node:net';
import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, signIn } from './support/people.ts';

// Errors no middleware catches are reported by Koa itself: a client that resets its connection
// while the service still reads the request body is one (`read ECONNRESET`). Koa's own handler
// prints them to stderr as a plain stack trace, outside the redacting logger; every service's
// Koa apps (auth's, oidc-provider's inside it, mcp's, web's) must log them as JSON instead.

let stack: Stack;
let apiKey: string;

beforeAll(async () => {
  stack = await startStack();
  const { sessionCookie } = await signIn(stack, 'alice@example.com');
  apiKey = (await createApiKey(stack, sessionCookie)).secret;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Sends a request head and the start of a longer body, then resets the connection. */
function resetMidBody(port: number, request: string, headers: Record<string, string> = {}): Promise<void> {
  const head = [
    request,
    'Host: 127.0.0.1',
    'Content-Length: 1000',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`${head}\r\n\r\n{"start`);
      setTimeout(() => {
        socket.resetAndDestroy();
        resolve();
      }, 300);
    });
    socket.on('error', () => {});
  });
}

/** The services' lines (the launcher prefixes each with `[name] `) printed since `from`. */
const serviceLines = (from: number) =>
  stack.output
    .slice(from)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => /^\[(auth|mcp|web)\] /.test(line));

describe('errors Koa reports itself', () => {
  it.each([
    ['auth (its app and oidc-provider)', 'AUTH_PORT', 'POST /api/auth/oauth2/register HTTP/1.1', {}],
    [
      'web',
      'WEB_PORT',
      'POST /dashboard/api-keys HTTP/1.1',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
    ],
    ['mcp', 'MCP_PORT', 'POST /api/mcp HTTP/1.1', { Accept: 'application/json', 'X-Api-Key': '' }],
  ] as const)(
    '%s: a client reset mid-request is logged as JSON, never as a raw stack trace',
    async (_name, port, request, headers) => {
      const from = stack.output.length;
      const service = port.replace('_PORT', '').toLowerCase();
      await resetMidBody(stack.ports[port]!, request, {
        'Content-Type': 'application/json',
        ...headers,
        ...('X-Api-Key' in headers ? { 'X-Api-Key': apiKey } : {}),
      });
      await expect
        .poll(
          () =>
            serviceLines(from).some(
              (line) => line.startsWith(`[${service}] `) && line.includes('ECONNRESET'),
            ),
          {
            timeout: 5_000,
          },
        )
        .toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = serviceLines(from).map((line) => line.slice(line.indexOf(' ') + 1));
      for (const line of lines) {
        expect(() => JSON.parse(line), `not JSON: ${line}`).not.toThrow();
        expect(line).not.toMatch(/^\s+at /);
      }
      const reported = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'request error');
      expect(reported).toMatchObject({ service, level: 'warn', err: { message: 'read ECONNRESET' } });
    },
  );
});
