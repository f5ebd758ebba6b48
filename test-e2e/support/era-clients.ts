import {
  Client as ModernSdkClient,
  StreamableHTTPClientTransport as ModernSdkTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacySdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacySdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// One interface over the MCP clients the dual-era tests drive, so that every client and protocol
// era goes through the same scenario (support/era-scenario.ts): the TypeScript SDK v2 pinned to
// 2026-07-28, the TypeScript SDK 1.x (initialize, 2025-11-25), and the Python SDK in either era
// (support/python-mcp.ts).

export type Era = 'modern' | 'legacy';

/** One HTTP request a client sent to /api/mcp, as the server saw its MCP parts. */
export interface WireRequest {
  httpMethod: string;
  /** The response's HTTP status (the Python client's log only). */
  status?: number | null;
  /** The JSON-RPC method of a POST body (null for a GET or DELETE). */
  method: string | null;
  protocolVersionHeader: string | null;
  mcpMethodHeader: string | null;
  mcpNameHeader: string | null;
}

export interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ProgressSeen {
  progress: number;
  total?: number | null;
  message?: string | null;
}

/** What the server asked the person through the client's elicitation handler. */
export interface ElicitationSeen {
  mode?: string;
  message: string;
  requestedSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

export interface CallOutcome {
  result: ToolResult;
  /** Progress notifications received before the result (copied when the result arrived). */
  progress: ProgressSeen[];
  elicitations: ElicitationSeen[];
}

export interface CallOptions {
  /** Ask for progress (a progressToken on the request). */
  progress?: boolean;
  /** What the person answers if the server asks for confirmation during this call. */
  elicitation?: 'accept' | 'decline';
}

export interface EraClient {
  era: Era;
  listTools(): Promise<Array<{ name: string }>>;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  /** Every HTTP request sent so far. */
  requests(): Promise<WireRequest[]>;
  close(): Promise<void>;
}

/** What a person who says yes fills in: every required field, ticked boxes, first choices. */
export function formAnswer(
  schema: ElicitationSeen['requestedSchema'],
): Record<string, string | number | boolean | string[]> {
  const answer: Record<string, string | number | boolean | string[]> = {};
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const name of schema?.required ?? []) {
    const field = properties[name] ?? {};
    if (field.type === 'boolean') answer[name] = true;
    else if (Array.isArray(field.enum)) answer[name] = field.enum[0] as string;
    else if (Array.isArray(field.oneOf)) answer[name] = (field.oneOf[0] as { const: string }).const;
    else if ('default' in field) answer[name] = field.default as string | number | boolean;
    else if (field.type === 'number' || field.type === 'integer')
      answer[name] = (field.minimum as number) ?? 0;
    else answer[name] = 'yes';
  }
  return answer;
}

/** A fetch that notes each request's MCP parts before sending it. */
function recordingFetch(log: WireRequest[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    let method: string | null = null;
    if (typeof init?.body === 'string') {
      try {
        method = (JSON.parse(init.body) as { method?: string }).method ?? null;
      } catch {
        method = null;
      }
    }
    log.push({
      httpMethod: init?.method ?? 'GET',
      method,
      protocolVersionHeader: headers.get('mcp-protocol-version'),
      mcpMethodHeader: headers.get('mcp-method'),
      mcpNameHeader: headers.get('mcp-name'),
    });
    return fetch(input, init);
  };
}

/** The person's answer for the call in flight, and what they were asked. */
class Person {
  decision: CallOptions['elicitation'];
  asked: ElicitationSeen[] = [];
  answer(params: ElicitationSeen) {
    this.asked.push(params);
    if (this.decision === 'accept')
      return { action: 'accept' as const, content: formAnswer(params.requestedSchema) };
    return { action: this.decision === 'decline' ? ('decline' as const) : ('cancel' as const) };
  }
}

async function tracked(
  person: Person,
  options: CallOptions,
  send: (onprogress: ((progress: ProgressSeen) => void) | undefined) => Promise<unknown>,
): Promise<CallOutcome> {
  const progress: ProgressSeen[] = [];
  person.decision = options.elicitation;
  person.asked = [];
  const result = (await send(options.progress ? (seen) => progress.push(seen) : undefined)) as ToolResult;
  return { result, progress: [...progress], elicitations: [...person.asked] };
}

/** TypeScript SDK v2, pinned to 2026-07-28, declaring form elicitation. */
export async function typescriptModernClient(
  url: string,
  headers: Record<string, string>,
): Promise<EraClient> {
  const log: WireRequest[] = [];
  const person = new Person();
  const client = new ModernSdkClient(
    { name: 'sheetgate-e2e-ts-v2', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) =>
    person.answer(request.params as ElicitationSeen),
  );
  await client.connect(
    new ModernSdkTransport(new URL(url), { requestInit: { headers }, fetch: recordingFetch(log) }),
  );
  return {
    era: 'modern',
    listTools: async () => (await client.listTools(undefined, { cacheMode: 'bypass' })).tools,
    call: (name, args, options = {}) =>
      tracked(person, options, (onprogress) =>
        client.callTool({ name, arguments: args }, onprogress ? { onprogress } : {}),
      ),
    requests: async () => [...log],
    close: () => client.close(),
  };
}

/** TypeScript SDK 1.x: initialize at 2025-11-25; it declares elicitation too, to show it is not used. */
export async function typescriptLegacyClient(
  url: string,
  headers: Record<string, string>,
): Promise<EraClient> {
  const log: WireRequest[] = [];
  const person = new Person();
  const client = new LegacySdkClient(
    { name: 'sheetgate-e2e-ts-v1', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) =>
    person.answer(request.params as ElicitationSeen),
  );
  await client.connect(
    new LegacySdkTransport(new URL(url), { requestInit: { headers }, fetch: recordingFetch(log) }),
  );
  return {
    era: 'legacy',
    listTools: async () => (await client.listTools()).tools,
    call: (name, args, options = {}) =>
      tracked(person, options, (onprogress) =>
        client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {}),
      ),
    requests: async () => [...log],
    close: () => client.close(),
  };
}
