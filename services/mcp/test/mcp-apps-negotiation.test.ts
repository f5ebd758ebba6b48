import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@sheetgate/service-runtime';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp } from '../src/app.ts';
import { appOnlyTools } from '../src/apps/app-only-tools.ts';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../src/apps/ui-extension.ts';
import { SHEETGATE_VIEWS, toolViews, type ViewDefinition } from '../src/apps/views.ts';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import { createMcpServer } from '../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';
import { postMcp } from './support/stack.ts';

// MCP Apps negotiated per request in both eras (docs/design.md §11.11), over real HTTP through the
// endpoint, against the real registry: a client that declares `io.modelcontextprotocol/ui` sees
// the views (tools' `_meta.ui`, resources/list, resources/read); any other sees the same bytes as a
// server without views. No tool runs here, so no Google is needed.

const MODERN = '2026-07-28';
const UI_CAPABILITIES = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };
const AUTH: AuthInfo = {
  userId: 'person',
  scopes: new Set(['sheets:read', 'sheets:write']),
  credential: 'access_token',
};
const logger = createLogger({ level: 'silent', service: 'mcp-apps-negotiation-test' });
const baseUrl = 'http://127.0.0.1';

interface Served {
  url: string;
  mcp: ReturnType<typeof createMcpServer>;
  close(): Promise<void>;
}

async function serve(views: readonly ViewDefinition[], auth: AuthInfo = AUTH): Promise<Served> {
  const mcp = createMcpServer({
    // The views' own tools are served with the views that call them, as service.ts serves them.
    tools: [...sheetgateTools({} as ToolDeps), ...(views.length ? appOnlyTools({} as ToolDeps) : [])],
    logger,
    baseUrl,
    states: createRequestStateCodec('x'.repeat(32)),
    views,
  });
  const server = http.createServer(createMcpApp({ logger, baseUrl, mcp, authenticate: async () => auth }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`,
    mcp,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let withViews: Served;
/** The same server as it was before MCP Apps: what a client without the extension must still see. */
let before: Served;
beforeAll(async () => {
  [withViews, before] = await Promise.all([serve(SHEETGATE_VIEWS), serve([])]);
});
afterAll(async () => {
  await Promise.all([withViews?.close(), before?.close()]);
});

function legacy(url: string, method: string, params: Record<string, unknown> = {}, session?: string) {
  return postMcp(
    url,
    { jsonrpc: '2.0', id: 1, method, params },
    { headers: { 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) } },
  );
}

function modern(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: object = {},
) {
  return postMcp(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'apps-test', version: '1.0.0' },
        },
      },
    },
    { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method } },
  );
}

const initialize = (capabilities: object) => ({
  protocolVersion: '2025-11-25',
  capabilities,
  clientInfo: { name: 'apps-test', version: '1.0.0' },
});

/** The answer's status, headers that matter here, and body as bytes. */
async function wire(response: Response) {
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    body: await response.text(),
  };
}

describe('a client that does not declare the extension sees nothing of it', () => {
  // Declared without the HTML format: such a client could not show the views.
  const undeclared = [
    ['no extensions', {}],
    ['another extension', { extensions: { 'com.example/other': {} } }],
    [
      'the extension without the HTML view format',
      { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/uri-list'] } } },
    ],
  ] as const;

  it.each(undeclared)(
    'legacy, %s: initialize and tools/list are the bytes of a server without views, and no session id',
    async (_, capabilities) => {
      for (const [method, params] of [
        ['initialize', initialize(capabilities)],
        ['tools/list', {}],
        ['ping', {}],
      ] as const) {
        const now = await wire(await legacy(withViews.url, method, params));
        expect(now, method).toEqual(await wire(await legacy(before.url, method, params)));
        expect(now.session, method).toBeNull();
      }
      const listed = (await readJson(await legacy(withViews.url, 'tools/list'))).result.tools as Array<{
        _meta?: unknown;
      }>;
      expect(listed.filter((tool) => tool._meta !== undefined)).toEqual([]);
    },
  );

  it.each(undeclared)(
    'modern, %s: server/discover and tools/list are the bytes of a server without views',
    async (_, capabilities) => {
      for (const method of ['server/discover', 'tools/list']) {
        const now = await wire(await modern(withViews.url, method, {}, capabilities));
        expect(now, method).toEqual(await wire(await modern(before.url, method, {}, capabilities)));
      }
    },
  );

  it('resources/list and resources/read stay unknown methods in both eras, as they were', async () => {
    for (const [method, params] of [
      ['resources/list', {}],
      ['resources/read', { uri: 'ui://sheetgate/range' }],
    ] as const) {
      const old = await legacy(withViews.url, method, params);
      expect(old.status).toBe(200);
      expect((await readJson(old)).error.code, method).toBe(-32601);
      const current = await modern(withViews.url, method, params);
      expect(current.status).toBe(404);
      expect((await readJson(current)).error.code, method).toBe(-32601);
    }
  });

  it('a session id of any other shape changes nothing', async () => {
    const now = await wire(await legacy(withViews.url, 'tools/list', {}, 'some-other-session'));
    expect(now.body).toBe((await wire(await legacy(before.url, 'tools/list'))).body);
  });
});

describe('a legacy client that declares it in initialize', () => {
  let session: string;
  beforeAll(async () => {
    const answer = await legacy(withViews.url, 'initialize', initialize(UI_CAPABILITIES));
    session = answer.headers.get('mcp-session-id')!;
    const { result } = await readJson(answer);
    expect(result.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { [UI_EXTENSION]: {} },
    });
  });

  it('gets a session id that says so, and its tools/list shows read_range with its view', async () => {
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const { result } = await readJson(await legacy(withViews.url, 'tools/list', {}, session));
    const withView = (result.tools as Array<{ name: string; _meta?: unknown }>).filter((tool) => tool._meta);
    // Every tool of a view, and no other.
    expect(withView.map((tool) => tool.name).sort()).toEqual(
      SHEETGATE_VIEWS.flatMap((view) => [...view.tools, ...(view.appOnlyTools ?? [])]).sort(),
    );
    const readRange = withView.find((tool) => tool.name === 'read_range');
    expect(readRange).toEqual(
      expect.objectContaining({
        _meta: { ui: { resourceUri: 'ui://sheetgate/range' }, 'ui/resourceUri': 'ui://sheetgate/range' },
      }),
    );
    // The tool itself is the one every client sees, with the view's metadata added.
    const plain = (await readJson(await legacy(before.url, 'tools/list'))).result.tools as Array<{
      name: string;
    }>;
    const { _meta, ...rest } = readRange as { _meta: unknown };
    expect(rest).toEqual(plain.find((tool) => tool.name === 'read_range'));
  });

  it("lists the view as a ui:// resource and reads it: HTML of the extension's MIME type, allowed no origin", async () => {
    const list = (await readJson(await legacy(withViews.url, 'resources/list', {}, session))).result;
    expect(list.resources).toEqual(
      SHEETGATE_VIEWS.map((view) =>
        expect.objectContaining({
          uri: `ui://sheetgate/${view.name}`,
          name: view.name,
          mimeType: VIEW_MIME_TYPE,
        }),
      ),
    );
    const { result } = await readJson(
      await legacy(withViews.url, 'resources/read', { uri: 'ui://sheetgate/range' }, session),
    );
    expect(result.contents).toHaveLength(1);
    const [content] = result.contents;
    expect(content).toMatchObject({ uri: 'ui://sheetgate/range', mimeType: 'text/html;profile=mcp-app' });
    expect(content.text).toMatch(/^<!doctype html>/);
    expect(content._meta.ui.csp).toEqual({
      connectDomains: [],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: [],
    });
    expect(content._meta.ui.permissions).toBeUndefined();
  });

  it('an unknown ui:// resource is -32602 naming it, as the SDKs read resource-not-found', async () => {
    const { error } = await readJson(
      await legacy(withViews.url, 'resources/read', { uri: 'ui://sheetgate/nothing' }, session),
    );
    expect(error).toEqual({
      code: -32602,
      message: 'Resource not found: ui://sheetgate/nothing',
      data: { uri: 'ui://sheetgate/nothing' },
    });
  });

  it('without its session id, the next request is a plain client again', async () => {
    const { result } = await readJson(await legacy(withViews.url, 'tools/list'));
    expect((result.tools as Array<{ _meta?: unknown }>).some((tool) => tool._meta)).toBe(false);
  });
});

describe('a modern client that declares it in the request', () => {
  it('server/discover declares the extension and resources', async () => {
    const { result } = await readJson(await modern(withViews.url, 'server/discover', {}, UI_CAPABILITIES));
    expect(result.capabilities.extensions).toEqual({ [UI_EXTENSION]: {} });
    expect(result.capabilities.resources).toEqual({ listChanged: false });
    expect(result.cacheScope).toBe('public');
  });

  it('tools/list shows the view; resources/list and resources/read answer with the 2026 fields', async () => {
    const tools = (await readJson(await modern(withViews.url, 'tools/list', {}, UI_CAPABILITIES))).result
      .tools;
    expect(tools.find((tool: { name: string }) => tool.name === 'read_range')._meta.ui).toEqual({
      resourceUri: 'ui://sheetgate/range',
    });
    const list = (await readJson(await modern(withViews.url, 'resources/list', {}, UI_CAPABILITIES))).result;
    expect(list).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(list._meta['io.modelcontextprotocol/serverInfo'].name).toBe('sheetgate');
    const read = (
      await readJson(
        await modern(withViews.url, 'resources/read', { uri: 'ui://sheetgate/range' }, UI_CAPABILITIES),
      )
    ).result;
    expect(read).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(read.contents[0].mimeType).toBe(VIEW_MIME_TYPE);
  });

  it('one request declaring it changes nothing for the next that does not', async () => {
    const plain = await wire(await modern(withViews.url, 'tools/list'));
    expect(plain.body).toBe((await wire(await modern(before.url, 'tools/list'))).body);
  });
});

describe('tools/list is built once per toolset combination and extension', () => {
  it('the same credential with and without the extension makes two lists, each once', async () => {
    const keyed = await serve(SHEETGATE_VIEWS, { ...AUTH, toolsets: ['core-read'] });
    try {
      const builtBefore = keyed.mcp.listsBuilt;
      const first = await wire(await modern(keyed.url, 'tools/list', {}, UI_CAPABILITIES));
      await wire(await modern(keyed.url, 'tools/list'));
      expect(keyed.mcp.listsBuilt).toBe(builtBefore + 2);
      expect((await wire(await modern(keyed.url, 'tools/list', {}, UI_CAPABILITIES))).body).toBe(first.body);
      expect(keyed.mcp.listsBuilt).toBe(builtBefore + 2);
    } finally {
      await keyed.close();
    }
  });
});

describe('a tool only views call (visibility app)', () => {
  const VIEWS: ViewDefinition[] = [
    // The change view shows list_changes and undo_change: left out for this one.
    ...SHEETGATE_VIEWS.filter((view) => view.name !== 'change'),
    {
      name: 'changes',
      title: 'Changes',
      description: 'test view',
      tools: ['list_changes'],
      appOnlyTools: ['undo_change'],
    },
  ];
  let served: Served;
  beforeAll(async () => {
    served = await serve(VIEWS);
  });
  afterAll(() => served?.close());

  it('is listed with visibility app to a client that declared the extension', async () => {
    const tools = (await readJson(await modern(served.url, 'tools/list', {}, UI_CAPABILITIES))).result.tools;
    expect(tools.find((tool: { name: string }) => tool.name === 'undo_change')._meta.ui).toEqual({
      resourceUri: 'ui://sheetgate/changes',
      visibility: ['app'],
    });
  });

  it('is neither listed nor callable for any other client', async () => {
    const tools = (await readJson(await modern(served.url, 'tools/list'))).result.tools;
    expect(tools.map((tool: { name: string }) => tool.name)).not.toContain('undo_change');
    const { error } = await readJson(
      await postMcp(
        served.url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'undo_change', arguments: { changeId: 'x' } },
        },
        { headers: { 'mcp-protocol-version': '2025-11-25' } },
      ),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('unknown tool "undo_change"');
  });
});

describe('the view registry', () => {
  const registered = new Set(
    [...sheetgateTools({} as ToolDeps), ...appOnlyTools({} as ToolDeps)].map((tool) => tool.name),
  );

  it("names only registered tools, each in one view, and Sheetgate's views pass", () => {
    expect(toolViews(SHEETGATE_VIEWS, registered).get('read_range')).toEqual({
      resourceUri: 'ui://sheetgate/range',
      appOnly: false,
    });
    const view = { name: 'x', title: 'X', description: 'x' };
    expect(() => toolViews([{ ...view, tools: ['no_such_tool'] }], registered)).toThrow(
      /not a registered tool/,
    );
    expect(() => toolViews([{ ...view, tools: ['read_range'] }, ...SHEETGATE_VIEWS], registered)).toThrow(
      /shown by two views/,
    );
  });
});
