import { createLogger } from '@sheetgate/service-runtime';
import { sheets } from 'googleapis/build/src/apis/sheets/index.js';
import { describe, expect, it } from 'vitest';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import {
  type ContractKind,
  type ContractMode,
  createContractChecks,
  violationIn,
} from '../src/errors/contract-violation.ts';
import { withQuotaTurns } from '../src/google/quota-adapter.ts';
import type { QuotaGate } from '../src/google/quota-gate.ts';
import { runAsTool, runForPerson } from '../src/google/tool-attribution.ts';
import { type CallContext, createMcpServer } from '../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import { mcpSettingsSchema } from '../src/settings.ts';
import type { ToolOutput } from '../src/tools/kit/tool-definition.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';

// The service's own promises (src/errors/contract-violation.ts): a tool's answer matches the
// output schema tools/list published, and a Google request is made for a person. A broken one
// fails its call outside production (MCP_CONTRACT_VIOLATIONS=fail, the default there) and is
// logged and counted, never blocking, in production (log).

/** Every log line written, parsed. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    service: 'contract-test',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

function checks(mode: ContractMode) {
  const { logger, lines } = capturedLogger();
  const counted: Array<[ContractKind, string]> = [];
  const contracts = createContractChecks({
    mode,
    logger,
    onViolation: (kind, tool) => counted.push([kind, tool]),
  });
  return { contracts, logger, lines, counted };
}

const AUTH: AuthInfo = {
  userId: 'u',
  scopes: new Set(['sheets:read', 'sheets:write']),
  credential: 'api_key',
};
const CALL: CallContext = {
  era: 'legacy',
  version: '2025-11-25',
  auth: AUTH,
  signal: new AbortController().signal,
  notify() {},
};

describe('a tool answer its outputSchema refuses', () => {
  /** The registry's list_spreadsheets, answering `structuredContent` instead of asking Google. */
  function serverAnswering(structuredContent: Record<string, unknown>, mode: ContractMode) {
    const real = sheetgateTools({} as ToolDeps).find((tool) => tool.name === 'list_spreadsheets')!;
    const tool = { ...real, run: async (): Promise<ToolOutput> => ({ structuredContent, text: 'answer' }) };
    const { contracts, logger, lines, counted } = checks(mode);
    const server = createMcpServer({
      tools: [tool],
      logger,
      baseUrl: 'https://sheetgate.example',
      states: createRequestStateCodec('x'.repeat(32)),
      contracts,
    });
    const call = async () =>
      (
        await server.handle(
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'list_spreadsheets', arguments: {} },
          },
          CALL,
        )
      ).reply as {
        result?: { structuredContent?: unknown; isError?: boolean };
        error?: { code: number; message: string };
      };
    return { call, lines, counted };
  }

  const WRONG_TYPE = { spreadsheets: 'none', nextPageToken: null };
  const EXTRA_KEY = { spreadsheets: [], nextPageToken: null, surprise: true };

  it('answers one that matches as it is', async () => {
    const { call, counted } = serverAnswering({ spreadsheets: [], nextPageToken: null }, 'fail');
    expect((await call()).result).toMatchObject({ structuredContent: { spreadsheets: [] } });
    expect(counted).toEqual([]);
  });

  it.each([
    ['a value of the wrong type', WRONG_TYPE, 'spreadsheets'],
    // tools/list publishes `additionalProperties: false`: a client's validator refuses the key.
    ['a key the schema does not name', EXTRA_KEY, 'surprise'],
  ])(
    'fail: %s is an internal error naming the tool and the issues, and logged',
    async (_name, answer, named) => {
      const { call, lines, counted } = serverAnswering(answer, 'fail');
      const reply = await call();
      expect(reply.result).toBeUndefined();
      expect(reply.error?.code).toBe(-32603);
      expect(reply.error?.message).toContain(
        'list_spreadsheets answered structuredContent its outputSchema refuses',
      );
      expect(reply.error?.message).toContain(named);
      expect(counted).toEqual([['tool_output', 'list_spreadsheets']]);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'error', contract: 'tool_output', tool: 'list_spreadsheets' }),
      );
    },
  );

  it('log: the answer goes out as it is, logged and counted', async () => {
    const { call, lines, counted } = serverAnswering(WRONG_TYPE, 'log');
    expect((await call()).result).toMatchObject({ structuredContent: WRONG_TYPE });
    expect(counted).toEqual([['tool_output', 'list_spreadsheets']]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', contract: 'tool_output' }));
  });
});

describe('a Google request outside a person’s context', () => {
  const READ = { method: 'GET', url: 'https://sheets.googleapis.com/v4/spreadsheets/abc' };

  function adapterWith(mode: ContractMode) {
    const turns: string[] = [];
    const gate = {
      waitForTurn: async (userId: string) => {
        turns.push(userId);
      },
      googleRefused: () => {},
    } as unknown as QuotaGate;
    const sent: string[] = [];
    const inner = async (options: { url: string | URL }) => {
      sent.push(String(options.url));
      return { status: 200, data: {} };
    };
    const { contracts, lines, counted } = checks(mode);
    const adapter = withQuotaTurns(gate, (options, send) => send(options), contracts);
    const send = (options: typeof READ) => adapter(options, inner);
    return { adapter, send, turns, sent, lines, counted };
  }

  it('made for a person, it takes their turn first', async () => {
    const { send, turns, sent, counted } = adapterWith('fail');
    await runForPerson('person-1', () => send(READ));
    expect(turns).toEqual(['person-1']);
    expect(sent).toEqual([READ.url]);
    expect(counted).toEqual([]);
  });

  it('fail: it is thrown, naming the tool whose call made it, and nothing is sent', async () => {
    const { send, sent, counted, lines } = adapterWith('fail');
    await expect(
      runAsTool(
        'read_range',
        () => {},
        () => send(READ),
      ),
    ).rejects.toThrow(/outside a person's context/);
    expect(sent).toEqual([]);
    expect(counted).toEqual([['google_without_person', 'read_range']]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', contract: 'google_without_person' }),
    );
  });

  it('log: it is sent without a turn, logged and counted', async () => {
    const { send, turns, sent, counted, lines } = adapterWith('log');
    await send(READ);
    expect(turns).toEqual([]);
    expect(sent).toEqual([READ.url]);
    expect(counted).toEqual([['google_without_person', 'none']]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', contract: 'google_without_person' }),
    );
  });

  it('through a googleapis client, the violation comes out of gaxios as what it is', async () => {
    const { adapter } = adapterWith('fail');
    // Port 9 (discard): nothing is listening, and nothing is sent either.
    const client = sheets({ version: 'v4', adapter, rootUrl: 'http://127.0.0.1:9/' });
    const error = await client.spreadsheets.get({ spreadsheetId: 'abc' }).then(
      () => undefined,
      (rejected: unknown) => rejected,
    );
    expect(violationIn(error)).toMatchObject({ kind: 'google_without_person' });
  });
});

describe('MCP_CONTRACT_VIOLATIONS', () => {
  const parse = (env: Record<string, string>) =>
    mcpSettingsSchema.parse({ INTERNAL_SERVICE_TOKEN: 'x'.repeat(32), ...env }).MCP_CONTRACT_VIOLATIONS;

  it('fails calls outside production (the tests run here) and can be set either way', () => {
    expect(process.env.NODE_ENV).not.toBe('production');
    expect(parse({})).toBe('fail');
    expect(parse({ MCP_CONTRACT_VIOLATIONS: 'log' })).toBe('log');
    expect(() => parse({ MCP_CONTRACT_VIOLATIONS: 'ignore' })).toThrow();
  });
});
