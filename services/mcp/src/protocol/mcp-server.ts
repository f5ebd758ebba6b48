import type {
  CallToolResult,
  DiscoverResult,
  Icon,
  InitializeResult,
  Tool,
} from '@modelcontextprotocol/server';
import type { ToolsetName } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { SERVER_UI_EXTENSION } from '../apps/ui-extension.ts';
import { VIEW_RESOURCE_UI, viewResources } from '../apps/view-resources.ts';
import { toolViews, type ViewDefinition } from '../apps/views.ts';
import type { AuthInfo } from '../auth/auth-info.ts';
import {
  type ContractChecks,
  createContractChecks,
  defaultContractMode,
  violationIn,
} from '../errors/contract-violation.ts';
import { ToolError } from '../errors/tool-error.ts';
import { runAsTool } from '../google/tool-attribution.ts';
import { protectedResourceMetadataUrl } from '../protected-resource.ts';
import { strictInput } from '../tools/kit/strict-input.ts';
import type { ToolContext, ToolDefinition } from '../tools/kit/tool-definition.ts';
import { toolsetIndex, toolsetKey } from '../tools/toolsets.ts';
import { clientShape, consentToCall } from './call-consent.ts';
import { type CallConsents, NO_CALL_CONSENTS } from './call-consents.ts';
import { type CallVerdict, judgeToolCall } from './call-permission.ts';
import { describeInvalidArguments } from './invalid-arguments.ts';
import {
  JsonRpcErrorCode,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcReply,
  type JsonRpcRequest,
  markConstantResult,
  rpcError,
} from './json-rpc.ts';
import { listedInputSchema } from './listed-input-schema.ts';
import { portableJsonSchema } from './portable-json-schema.ts';
import {
  type Era,
  LEGACY_PROTOCOL_VERSIONS,
  META,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol-versions.ts';
import type { RequestStateCodec } from './request-state.ts';
import { RpcFailure } from './rpc-failure.ts';

const INSTRUCTIONS =
  "Tools for reading and writing the signed-in person’s Google Sheets. Ranges use A1 notation with quoted tab names ('My tab'!A1:C9). Large reads are paged: follow the notice to fetch the rest.";
/**
 * server/discover is the same for every caller and changes only with a release: any cache may
 * keep it (`public`) for an hour. A client that meets an unknown tool after a release gets -32602
 * and lists again (MCP caching: clients MAY re-fetch early on such errors).
 */
const DISCOVER_CACHE = { ttlMs: 3_600_000, cacheScope: 'public' } as const;
/**
 * tools/list shows the credential's toolsets (docs/design.md §11, "Toolsets"), so only the
 * caller's own cache may keep it (`private`); it too changes only with a release.
 */
const LIST_CACHE = { ttlMs: 3_600_000, cacheScope: 'private' } as const;
/** The MCP Apps views' resources are the same for every caller and change only with a release. */
const VIEW_RESOURCE_CACHE = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

/** One request as the endpoint hands it over: its era, credential and response stream. */
export interface CallContext {
  era: Era;
  /** The protocol version of the request (negotiated by initialize for legacy clients). */
  version: string;
  auth: AuthInfo;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Modern clients declare these per request; legacy ones are never asked anything. */
  clientCapabilities?: Record<string, unknown>;
  /**
   * The client declared the MCP Apps extension (docs/design.md §11.11): in this request's
   * capabilities (modern), or in its initialize, as its session id says (legacy; ui-extension.ts).
   */
  ui?: boolean;
  /** Sends a notification on this request's response stream (opening it as SSE if need be). */
  notify(notification: JsonRpcNotification): void;
}

/**
 * Sheetgate's MCP method handlers, for both eras (docs/design.md §15). One instance per process,
 * shared by every HTTP request: constant results (tools/list, server/discover) are built and
 * serialised once. This replaces the SDK 1.x `Server` behind a multiplexing transport: its
 * schemas, capability bookkeeping and handshake state were per-connection machinery a stateless
 * endpoint paid for on every request, and it has no notion of the 2026-07-28 era.
 */
/**
 * What the one step (call-permission.ts) said of the tool calls of one HTTP body, all judged before
 * any of them runs: a missing scope refuses the whole body (`admit` throws its 403), a toolset
 * outside the credential's answers its own call.
 */
export type Admission = ReadonlyMap<JsonRpcRequest, CallVerdict>;

/** Issues named when a tool's answer breaks its output schema: enough to find the bug. */
const MAX_OUTPUT_ISSUES = 20;

/**
 * How a call of a known tool ended: `ok`; `tool_error` (the tool said why it could not: Google's
 * refusal, bad input it caught, a declined confirmation); `invalid_arguments`; `not_enabled` (its
 * toolset is not the credential's); `failed` (a bug: logged); `cancelled` (the client left or the
 * request timed out).
 */
export type ToolCallOutcome =
  | 'ok'
  | 'tool_error'
  | 'invalid_arguments'
  | 'not_enabled'
  | 'failed'
  | 'cancelled';

export function createMcpServer(options: {
  tools: ToolDefinition[];
  logger: Logger;
  baseUrl: string;
  states: RequestStateCodec;
  /**
   * The person's choices per credential and the call approvals, from auth (call-consents.ts);
   * without them every call that needs the person's say is refused (fail closed).
   */
  consents?: CallConsents;
  /** How long a request may run before it is answered with an error and its work cancelled. */
  requestTimeoutMs?: number;
  /** Told how each call of a known tool ended (the metrics: which tools and toolsets are used). */
  onToolCall?: (tool: string, toolset: ToolsetName, outcome: ToolCallOutcome) => void;
  /**
   * What a tool answer outside its output schema does (MCP_CONTRACT_VIOLATIONS); without it, the
   * call fails outside production.
   */
  contracts?: ContractChecks;
  /**
   * The MCP Apps views (apps/views.ts), shown only to clients that declare the extension; without
   * them the server does not offer it.
   */
  views?: readonly ViewDefinition[];
}) {
  const timeoutMs = options.requestTimeoutMs ?? 120_000;
  const contracts =
    options.contracts ?? createContractChecks({ mode: defaultContractMode(), logger: options.logger });
  const where = {
    baseUrl: options.baseUrl,
    dashboardUrl: `${options.baseUrl}/dashboard`,
    resourceMetadataUrl: protectedResourceMetadataUrl(options.baseUrl),
  };
  const icons = sheetgateIcons(options.baseUrl);
  const serverInfo = {
    name: 'sheetgate',
    title: 'Sheetgate',
    version: '0.1.0',
    description: 'Google Sheets and Drive spreadsheets, for the person who signed in.',
    websiteUrl: `${options.baseUrl}/`,
    icons,
  };
  const capabilities = { tools: { listChanged: false } };
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const toolsets = toolsetIndex(options.tools);
  // MCP Apps (docs/design.md §11.11): each tool's view, checked against the registry at start.
  const views = toolViews(options.views ?? [], new Set(tools.keys()));
  const resources = viewResources(options.views ?? []);
  const offersUi = resources.size > 0;
  const appOnly = new Set([...views].filter(([, view]) => view.appOnly).map(([name]) => name));
  /** Whether this request gets the extension: the client declared it and there are views. */
  const uiOf = (call: Pick<CallContext, 'ui'>) => offersUi && call.ui === true;
  const uiCapabilities = {
    ...capabilities,
    resources: { listChanged: false },
    extensions: SERVER_UI_EXTENSION,
  };
  const listed = (tool: ToolDefinition): Tool => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    icons,
    inputSchema: listedInputSchema(
      portableJsonSchema(z.toJSONSchema(tool.inputSchema, { io: 'input' })),
    ) as Tool['inputSchema'],
    outputSchema: portableJsonSchema(z.toJSONSchema(tool.outputSchema)) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  });
  // Made on first use, not at start: converting every tool's schemas to JSON Schema costs CPU
  // that a replica's start (and `pnpm start`'s) need not wait for.
  const listedTools = new Map<string, Tool>();
  const listedTool = (tool: ToolDefinition): Tool => {
    let found = listedTools.get(tool.name);
    if (!found) {
      found = listed(tool);
      listedTools.set(tool.name, found);
    }
    return found;
  };
  const modernMeta = { [META.serverInfo]: serverInfo };
  const discoverResult = (declared: typeof capabilities) =>
    constant({
      resultType: 'complete',
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: declared,
      instructions: INSTRUCTIONS,
      ...DISCOVER_CACHE,
      _meta: modernMeta,
    } satisfies DiscoverResult);
  const discover = discoverResult(capabilities);
  const discoverUi = discoverResult(uiCapabilities);
  /**
   * A tool as a client that declared MCP Apps sees it: its view's URI in `_meta.ui` (and in the
   * flat `ui/resourceUri` key the extension deprecates, which hosts of its first drafts read and
   * the extension's own SDK still writes), and `visibility: ["app"]` for a tool only the view calls.
   */
  const withView = (tool: ToolDefinition): Tool => {
    const listed = listedTool(tool);
    const view = views.get(tool.name);
    if (!view) return listed;
    const ui = view.appOnly
      ? { resourceUri: view.resourceUri, visibility: ['app'] }
      : { resourceUri: view.resourceUri };
    return { ...listed, _meta: { ui, 'ui/resourceUri': view.resourceUri } };
  };
  /**
   * tools/list per distinct toolset combination (`toolsetKey`: at most 2^n of them) and whether the
   * client declared MCP Apps, built and serialised once, on first use, in the registry's order.
   */
  const lists = new Map<string, { legacy: object; modern: object }>();
  function listsFor(auth: AuthInfo, ui: boolean) {
    const sets = toolsetKey(auth.toolsets);
    const key = ui ? `${sets}\nui` : sets;
    let found = lists.get(key);
    if (!found) {
      const names = new Set(sets.split(' '));
      const shown = options.tools
        .filter((tool) => names.has(toolsets.setOf.get(tool.name)!) && (ui || !appOnly.has(tool.name)))
        .map(ui ? withView : listedTool);
      found = {
        legacy: constant({ tools: shown }),
        modern: constant({ resultType: 'complete', tools: shown, ...LIST_CACHE, _meta: modernMeta }),
      };
      lists.set(key, found);
    }
    return found;
  }

  // Requests in flight, by who sent them and their id: a legacy client cancels one with
  // notifications/cancelled on another POST (a modern one closes the response stream). Ids are the
  // client's own, so several requests may share one key.
  const inFlight = new Map<string, Set<AbortController>>();
  let answering = 0;
  let running = 0;

  /** The tool a call names, if this client may know it (an app-only tool is its views' alone). */
  const toolFor = (name: unknown, ui: boolean) => {
    const tool = tools.get(String(name));
    return tool && (ui || !appOnly.has(tool.name)) ? tool : undefined;
  };

  function admit(
    auth: AuthInfo,
    requests: readonly JsonRpcRequest[],
    call: Pick<CallContext, 'ui'> = {},
  ): Admission {
    // Made only for a body with tool calls: tools/list, the hot path, allocates nothing here.
    let verdicts: Map<JsonRpcRequest, CallVerdict> | undefined;
    const ui = uiOf(call);
    for (const request of requests) {
      const tool = request.method === 'tools/call' ? toolFor(request.params?.name, ui) : undefined;
      // Not a call of a known tool: nothing to judge (callTool answers an unknown one).
      if (!tool) continue;
      const toolset = toolsets.setOf.get(tool.name)!;
      const verdict = judgeToolCall(auth, { name: tool.name, scope: tool.scope, toolset }, where);
      if (!verdict.may && verdict.refusal === 'scope') throw verdict.answer;
      verdicts ??= new Map();
      verdicts.set(request, verdict);
    }
    return verdicts ?? EMPTY_ADMISSION;
  }

  // Checked against what tools/list publishes: `additionalProperties: false` on every object a
  // schema does not leave open, which a client's validator holds the answer to.
  const publishedOutputSchemas = new Map<string, z.ZodObject>();
  function checkOutput(tool: ToolDefinition, structuredContent: unknown) {
    let schema = publishedOutputSchemas.get(tool.name);
    if (!schema) {
      schema = strictInput(tool.outputSchema);
      publishedOutputSchemas.set(tool.name, schema);
    }
    const checked = schema.safeParse(structuredContent);
    if (checked.success) return;
    const issues = checked.error.issues;
    const more = issues.length > MAX_OUTPUT_ISSUES ? `\n(and ${issues.length - MAX_OUTPUT_ISSUES} more)` : '';
    contracts.violated(
      'tool_output',
      tool.name,
      `${tool.name} answered structuredContent its outputSchema refuses: ${z.prettifyError({ issues: issues.slice(0, MAX_OUTPUT_ISSUES) } as z.ZodError)}${more}`,
    );
  }

  async function callTool(
    request: JsonRpcRequest,
    call: CallContext,
    signal: AbortSignal,
    admission: Admission,
  ) {
    const params = request.params ?? {};
    const name = params.name;
    if (typeof name !== 'string')
      throw new RpcFailure(JsonRpcErrorCode.InvalidParams, 'params.name must be a string');
    const tool = toolFor(name, uiOf(call));
    if (!tool) {
      throw new RpcFailure(
        JsonRpcErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name.slice(0, 100))}; call tools/list for the available tools`,
      );
    }
    const set = toolsets.setOf.get(name)!;
    const count = (outcome: ToolCallOutcome) => options.onToolCall?.(tool.name, set, outcome);
    const verdict = admission.get(request);
    // Every path admits its calls first; one that did not is a bug, not a call to let through.
    if (!verdict) throw new Error(`tools/call of ${name} was not admitted`);
    if (!verdict.may) {
      if (verdict.refusal === 'toolset') count('not_enabled');
      throw verdict.answer;
    }
    const args = params.arguments ?? {};
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) {
      count('invalid_arguments');
      // A tool result, not a JSON-RPC error: the model reads it and corrects the call (MCP asks
      // for input validation errors to be tool execution errors for that reason).
      return toolError(describeInvalidArguments(tool.name, tool.inputSchema, parsed.error));
    }
    const reporter = progressReporter(params, call);
    const context: ToolContext = { auth: call.auth, signal, progress: reporter.progress };
    try {
      // Google requests made inside are counted against the tool (tool-attribution.ts).
      return await runAsTool(tool.name, reporter.note, async () => {
        // The person's say (outbound actions, destruction): asked, refused or let run.
        const consent = await consentToCall({
          tool,
          input: parsed.data,
          args,
          params,
          shape: clientShape(call),
          context,
          states: options.states,
          consents: options.consents ?? NO_CALL_CONSENTS,
          dashboardUrl: where.dashboardUrl,
        });
        if (!consent.proceed) {
          count('tool_error');
          return consent.result;
        }
        const output = await tool.run(parsed.data, context);
        checkOutput(tool, output.structuredContent);
        count('ok');
        return {
          content: [{ type: 'text', text: output.text }],
          structuredContent: output.structuredContent,
        };
      });
    } catch (error) {
      if (error instanceof ToolError) {
        count(signal.aborted ? 'cancelled' : 'tool_error');
        return toolError(error.message);
      }
      // A broken promise of the service's own (logged where it was found): the call answers it,
      // named, so that the test reaching it fails.
      const violation = violationIn(error);
      if (violation) {
        count('failed');
        throw new RpcFailure(JsonRpcErrorCode.InternalError, violation.message);
      }
      if (error instanceof RpcFailure || signal.aborted) {
        count(signal.aborted ? 'cancelled' : 'failed');
        throw error;
      }
      count('failed');
      options.logger.error({ err: error, tool: tool.name }, 'tool failed');
      return toolError('the tool failed unexpectedly; try again');
    }
  }

  async function run(
    request: JsonRpcRequest,
    call: CallContext,
    signal: AbortSignal,
    admission: Admission,
  ): Promise<unknown> {
    const modern = call.era === 'modern';
    switch (request.method) {
      case 'tools/list': {
        const list = listsFor(call.auth, uiOf(call));
        return modern ? list.modern : list.legacy;
      }
      // MCP Apps: the views' resources, for a client that declared the extension only; for any
      // other these stay unknown methods, as before.
      case 'resources/list':
        if (uiOf(call)) return modern ? resourceList.modern : resourceList.legacy;
        break;
      case 'resources/read':
        if (uiOf(call)) return readResource(request.params?.uri, modern);
        break;
      case 'tools/call': {
        const result = await callTool(request, call, signal, admission);
        return modern && !('resultType' in result)
          ? { resultType: 'complete', ...result, _meta: modernMeta }
          : result;
      }
      case 'server/discover':
        if (modern) return uiOf(call) ? discoverUi : discover;
        break;
      case 'initialize':
        if (!modern) return initializeResult(request.params?.protocolVersion, uiOf(call));
        break;
      case 'ping':
        if (!modern) return {};
        break;
    }
    throw new RpcFailure(
      JsonRpcErrorCode.MethodNotFound,
      `method not found: ${JSON.stringify(request.method.slice(0, 100))}`,
      undefined,
      modern ? 404 : 200,
    );
  }

  function initializeResult(requested: unknown, ui: boolean): InitializeResult {
    return {
      // Legacy negotiation: the client's version when served here, else the newest legacy one.
      protocolVersion:
        typeof requested === 'string' && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
          ? requested
          : LEGACY_PROTOCOL_VERSIONS[0],
      capabilities: ui ? uiCapabilities : capabilities,
      serverInfo,
      instructions: INSTRUCTIONS,
    };
  }

  const resourceList = (() => {
    const listed = [...resources.values()].map(({ uri, name, title, description, mimeType }) => ({
      uri,
      name,
      title,
      description,
      mimeType,
      _meta: { ui: VIEW_RESOURCE_UI },
    }));
    return {
      legacy: constant({ resources: listed }),
      modern: constant({
        resultType: 'complete',
        resources: listed,
        ...VIEW_RESOURCE_CACHE,
        _meta: modernMeta,
      }),
    };
  })();
  // Each view's resources/read answer, built and serialised on its first read.
  const reads = new Map<string, { legacy: object; modern: object }>();
  function readResource(uri: unknown, modern: boolean): object {
    if (typeof uri !== 'string')
      throw new RpcFailure(JsonRpcErrorCode.InvalidParams, 'params.uri must be a string');
    let found = reads.get(uri);
    if (!found) {
      const resource = resources.get(uri);
      // A miss is -32602 carrying the URI, in both eras (MCP 2026-07-28 resources/read; the
      // SDKs read it as resource-not-found).
      if (!resource)
        throw new RpcFailure(JsonRpcErrorCode.InvalidParams, `Resource not found: ${uri.slice(0, 200)}`, {
          uri: uri.slice(0, 200),
        });
      const contents = [
        { uri, mimeType: resource.mimeType, text: resource.html(), _meta: { ui: VIEW_RESOURCE_UI } },
      ];
      found = {
        legacy: constant({ contents }),
        modern: constant({ resultType: 'complete', contents, ...VIEW_RESOURCE_CACHE, _meta: modernMeta }),
      };
      reads.set(uri, found);
    }
    return modern ? found.modern : found.legacy;
  }

  return {
    tools,
    serverInfo,
    /** The tools/list results built so far, one per toolset combination and MCP Apps (for tests). */
    get listsBuilt(): number {
      return lists.size;
    },

    /**
     * Judges the tool calls of one HTTP body (call-permission.ts), before any of them runs: throws
     * the 403 of the first call whose scope the credential lacks, and says which calls fall outside
     * its toolsets. Every `handle` of a `tools/call` carries its body's admission. `call.ui`: the
     * client declared MCP Apps (a tool only views call is unknown to any other).
     */
    admit,

    /**
     * Answers one request. Rejects only with the 403 of a call whose scope the credential lacks,
     * when no `admission` was given (it is judged alone then); every other failure becomes a
     * JSON-RPC error, a timeout or a departed client -32603, and their work is cancelled through the
     * tool's signal.
     */
    async handle(
      request: JsonRpcRequest,
      call: CallContext,
      admission?: Admission,
    ): Promise<{ reply: JsonRpcReply; httpStatus: number }> {
      // Everything but tools/call answers from memory: no timer, no cancellation to arrange (the
      // hot path: tools/list).
      if (request.method !== 'tools/call') {
        try {
          const result = await run(request, call, NEVER, EMPTY_ADMISSION);
          return { reply: { jsonrpc: '2.0', id: request.id, result }, httpStatus: 200 };
        } catch (error) {
          if (!(error instanceof RpcFailure)) throw error;
          return {
            reply: rpcError(request.id, error.code, error.message, error.data),
            httpStatus: error.httpStatus,
          };
        }
      }
      const verdicts = admission ?? admit(call.auth, [request], call);
      const key = inFlightKey(call.auth, request.id);
      const controller = new AbortController();
      const onClientGone = () => controller.abort(new Error('the client went away'));
      call.signal.addEventListener('abort', onClientGone, { once: true });
      const timer = setTimeout(() => controller.abort(new Error('the request timed out')), timeoutMs);
      const sameKey = inFlight.get(key) ?? new Set<AbortController>();
      sameKey.add(controller);
      inFlight.set(key, sameKey);
      answering++;
      running++;
      const outcome = run(request, call, controller.signal, verdicts).finally(() => running--);
      // Answered early (timeout, cancellation), the handler still ends in its own time: its
      // rejection is expected and must not surface as an unhandled one.
      outcome.catch(() => {});
      try {
        const aborted = new Promise<never>((_, reject) => {
          controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
        });
        aborted.catch(() => {});
        const result = await Promise.race([outcome, aborted]);
        return { reply: { jsonrpc: '2.0', id: request.id, result }, httpStatus: 200 };
      } catch (error) {
        if (error instanceof RpcFailure) {
          return {
            reply: rpcError(request.id, error.code, error.message, error.data),
            httpStatus: error.httpStatus,
          };
        }
        if (controller.signal.aborted) {
          const reason =
            controller.signal.reason instanceof Error ? controller.signal.reason.message : 'cancelled';
          return { reply: rpcError(request.id, JsonRpcErrorCode.InternalError, reason), httpStatus: 200 };
        }
        options.logger.error({ err: error, method: request.method }, 'mcp request failed');
        return {
          reply: rpcError(request.id, JsonRpcErrorCode.InternalError, 'internal error'),
          httpStatus: 500,
        };
      } finally {
        answering--;
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onClientGone);
        sameKey.delete(controller);
        if (sameKey.size === 0 && inFlight.get(key) === sameKey) inFlight.delete(key);
      }
    },

    /** notifications/cancelled from a legacy client: stops its request with that id, if running here. */
    cancel(auth: AuthInfo, requestId: unknown) {
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
      for (const controller of inFlight.get(inFlightKey(auth, requestId)) ?? [])
        controller.abort(new Error('the client cancelled the request'));
    },

    /** Requests not yet answered (for tests proving nothing outlives its request). */
    get inFlight(): number {
      return answering;
    },

    /** Method handlers still running, answered or not: a cancelled one must stop, not run on. */
    get running(): number {
      return running;
    },
  };
}

export type McpServerHandle = ReturnType<typeof createMcpServer>;

/** The signal of a request that cannot be cancelled because it does no work. */
const NEVER = new AbortController().signal;
/** The admission of a body without tool calls. */
const EMPTY_ADMISSION: Admission = new Map();

function inFlightKey(auth: AuthInfo, id: JsonRpcId): string {
  return `${auth.userId}\n${auth.clientId ?? ''}\n${auth.apiKeyId ?? ''}\n${typeof id}:${id}`;
}

/**
 * notifications/progress for the request's progressToken, growing only; nothing without a token.
 * `progress` is the tool's own; `note` tells the client why the call is waiting (its turn at
 * Google's quota) without a step of the tool's: a thousandth past the last value, so the tool's
 * next whole step still grows.
 */
function progressReporter(
  params: Record<string, unknown>,
  call: CallContext,
): { progress: ToolContext['progress']; note: (message: string) => void } {
  const token = (params._meta as Record<string, unknown> | undefined)?.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return { progress: () => {}, note: () => {} };
  let last = Number.NEGATIVE_INFINITY;
  const progress: ToolContext['progress'] = (value, total, message) => {
    if (!(value > last)) return;
    last = value;
    call.notify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: value,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  };
  return {
    progress,
    note: (message) => progress(last === Number.NEGATIVE_INFINITY ? 0 : last + 0.001, undefined, message),
  };
}

function constant<T extends object>(result: T): T {
  markConstantResult(result);
  return result;
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The Sheetgate mark, served by the web service (same origin as the endpoint). */
function sheetgateIcons(baseUrl: string): Icon[] {
  return [{ src: `${baseUrl}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }];
}
