import type { AuthInfo as SdkAuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

export type JsonRpcId = string | number;
export type JsonRpcReply = { jsonrpc: '2.0'; id: JsonRpcId } & ({ result: unknown } | { error: unknown });

interface Pending {
  originalId: JsonRpcId;
  resolve: (reply: JsonRpcReply) => void;
  timer: NodeJS.Timeout;
}

/**
 * One SDK `Server` per process serves every HTTP request through this transport
 * (docs/design.md §14: the per-request McpServer pattern runs at ~4% of bare Koa; the SDK's
 * stateful transport grows without bound in JSON mode). Each request gets a process-unique
 * internal id, so concurrent clients that all start at id 1 cannot collide in the SDK's in-flight
 * table, and the reply is mapped back to the client's own id. Nothing outlives its request: a
 * reply, a timeout or a client disconnect removes the entry.
 *
 * Server-initiated notifications and requests have no stream to travel on in JSON-response mode
 * and are dropped; client notifications are not forwarded (a stateless client's
 * `notifications/cancelled` names an id that only meant something on its own connection).
 */
export class MultiplexingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #nextId = 0;

  constructor(options: { timeoutMs?: number } = {}) {
    this.#timeoutMs = options.timeoutMs ?? 120_000;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    for (const [id, pending] of this.#pending)
      this.#settle(id, pending, internalError(pending.originalId, 'server closing'));
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('id' in message) || 'method' in message) return;
    const internalId = message.id as number;
    const pending = this.#pending.get(internalId);
    if (!pending) return;
    this.#settle(internalId, pending, { ...(message as JsonRpcReply), id: pending.originalId });
  }

  /** Hands one client request to the server and resolves with its reply, under the client's id. */
  dispatch(request: JSONRPCRequest, authInfo: SdkAuthInfo, signal?: AbortSignal): Promise<JsonRpcReply> {
    const internalId = ++this.#nextId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const pending = this.#pending.get(internalId);
        if (pending) this.#settle(internalId, pending, internalError(request.id, 'the request timed out'));
        this.#cancel(internalId, 'timed out');
      }, this.#timeoutMs);
      this.#pending.set(internalId, { originalId: request.id, resolve, timer });
      signal?.addEventListener(
        'abort',
        () => {
          const pending = this.#pending.get(internalId);
          if (!pending) return;
          this.#settle(internalId, pending, internalError(request.id, 'the client went away'));
          this.#cancel(internalId, 'client disconnected');
        },
        { once: true },
      );
      this.onmessage?.({ ...request, id: internalId }, { authInfo });
    });
  }

  /** How many requests are in flight (for tests proving nothing leaks). */
  get inFlight(): number {
    return this.#pending.size;
  }

  #settle(internalId: number, pending: Pending, reply: JsonRpcReply) {
    clearTimeout(pending.timer);
    this.#pending.delete(internalId);
    pending.resolve(reply);
  }

  // Tells the SDK to abort the handler (its signal), so a tool stops calling Google for nobody.
  #cancel(internalId: number, reason: string) {
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: internalId, reason },
    });
  }
}

function internalError(id: JsonRpcId, message: string): JsonRpcReply {
  return { jsonrpc: '2.0', id, error: { code: -32603, message } };
}
