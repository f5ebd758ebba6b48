import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFiles } from './support/google-emulator.ts';
import { createApiKey, signIn } from './support/people.ts';

// OpenTelemetry traces across the services (packages/service-runtime/src/tracing.ts): the stack
// `pnpm start` runs, exporting OTLP/HTTP JSON to a receiver in this process; a tool call carrying
// a caller's trace context must come back as one span tree — mcp's server span under the caller's
// span, its gRPC and Google client spans under it, auth's gRPC server span under mcp's client span
// — with no credential or cell contents anywhere in it.

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  service: string;
}

const SERVER = 2;
const CLIENT = 3;
const SECRET_CELL = `cell-${randomBytes(6).toString('hex')}`;

let stack: Stack;
let receiver: http.Server;
const exported: ExportedSpan[] = [];
const rawBodies: string[] = [];
let apiKey = '';
let spreadsheetId = '';

function startReceiver(): Promise<string> {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') {
        rawBodies.push(body);
        const payload = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: Omit<ExportedSpan, 'service'>[] }>;
          }>;
        };
        for (const resourceSpans of payload.resourceSpans) {
          const service =
            resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resourceSpans.scopeSpans)
            for (const span of scope.spans) exported.push({ ...span, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}`),
    ),
  );
}

/** The spans of `traceId` once `done` finds what it needs in them (exports arrive in batches). */
async function spansOf(traceId: string, done: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const spans = exported.filter((span) => span.traceId === traceId);
    if (done(spans)) return spans;
    if (Date.now() > deadline)
      throw new Error(
        `trace ${traceId} incomplete: ${spans.map((s) => `${s.service} ${s.name}`).join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function toolCall(headers: Record<string, string>, body: Record<string, unknown>) {
  return fetch(`${stack.baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': apiKey,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  const endpoint = await startReceiver();
  stack = await startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });
  const person = await signIn(stack, 'alice@example.com');
  apiKey = (await createApiKey(stack, person.sessionCookie)).secret;
  spreadsheetId = (
    await seedFiles(stack, 'alice@example.com', [
      { name: 'Traced', sheets: [{ title: 'Sheet1', values: [['name'], [SECRET_CELL]] }] },
    ])
  )[0]!;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  receiver?.close();
});

describe('traces across the services', () => {
  it('a tool call under a caller’s traceparent is one span tree: mcp, its gRPC and Google calls, auth', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const response = await toolCall(
      { 'mcp-protocol-version': '2025-11-25', traceparent: `00-${traceId}-${callerSpan}-01` },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read_range', arguments: { spreadsheetId, range: 'Sheet1!A1:A2' } },
      },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(SECRET_CELL);

    const brokerCall = 'sheetgate.v1.TokenBrokerService/GetGoogleAccessToken';
    const spans = await spansOf(
      traceId,
      (found) =>
        found.some((s) => s.name === 'sheets.spreadsheets.values.get') &&
        found.some((s) => s.service === 'sheetgate-auth' && s.name === brokerCall) &&
        found.some((s) => s.name === 'tools/call read_range'),
    );
    const server = spans.find((s) => s.name === 'tools/call read_range')!;
    expect(server).toMatchObject({ service: 'sheetgate-mcp', kind: SERVER, parentSpanId: callerSpan });

    const google = spans.find((s) => s.name === 'sheets.spreadsheets.values.get')!;
    expect(google).toMatchObject({ service: 'sheetgate-mcp', kind: CLIENT, parentSpanId: server.spanId });

    const asked = spans.find((s) => s.service === 'sheetgate-mcp' && s.name === brokerCall)!;
    expect(asked).toMatchObject({ kind: CLIENT, parentSpanId: server.spanId });
    const answered = spans.find((s) => s.service === 'sheetgate-auth' && s.name === brokerCall)!;
    expect(answered).toMatchObject({ kind: SERVER, parentSpanId: asked.spanId });
  });

  it('takes a 2026-07-28 request’s trace context from params._meta', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const response = await toolCall(
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'read_range' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'read_range',
          arguments: { spreadsheetId, range: 'Sheet1!A1:A2' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'traces-e2e', version: '1' },
            traceparent: `00-${traceId}-${callerSpan}-01`,
          },
        },
      },
    );
    expect(response.status).toBe(200);
    const spans = await spansOf(traceId, (found) =>
      found.some((s) => s.name === 'sheets.spreadsheets.values.get'),
    );
    const server = spans.find((s) => s.name === 'tools/call read_range')!;
    expect(server).toMatchObject({ service: 'sheetgate-mcp', kind: SERVER, parentSpanId: callerSpan });
    const attributes = Object.fromEntries((server.attributes ?? []).map((a) => [a.key, a.value]));
    expect(attributes['mcp.protocol.version']).toEqual({ stringValue: '2026-07-28' });
  });

  it('exports no credential, spreadsheet id or cell contents', async () => {
    expect(rawBodies.length).toBeGreaterThan(0);
    const everything = rawBodies.join('\n');
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(SECRET_CELL);
    expect(everything).not.toContain(spreadsheetId);
    expect(everything).not.toMatch(/ya29\.|Bearer /);
  });
});
