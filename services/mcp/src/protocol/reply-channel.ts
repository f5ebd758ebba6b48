import type { ServerResponse } from 'node:http';
import { type JsonRpcNotification, type JsonRpcReply, serializeReply } from './json-rpc.ts';

/** What Koa called `application/json` (clients and tests read the charset too). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * How one request's answer reaches the client (MCP Streamable HTTP): plain JSON, unless the
 * request sends a notification (progress) before its result and the client accepts
 * text/event-stream; then the response becomes an SSE stream that carries the notifications
 * and ends with the result. A call that reports nothing pays nothing for streaming.
 */
export class ReplyChannel {
  readonly res: ServerResponse;
  readonly canStream: boolean;
  #streaming = false;
  #done = false;

  constructor(res: ServerResponse, canStream: boolean) {
    this.res = res;
    this.canStream = canStream;
  }

  notify(notification: JsonRpcNotification): void {
    const res = this.res;
    if (!this.canStream || this.#done || res.destroyed) return;
    if (!this.#streaming) {
      this.#streaming = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        // Proxies (nginx) must pass each event on as it comes (MCP transports: SHOULD).
        'x-accel-buffering': 'no',
      });
    }
    res.write(event(JSON.stringify(notification)));
  }

  finish(status: number, reply: JsonRpcReply | JsonRpcReply[]): void {
    this.#done = true;
    if (this.#streaming) {
      if (!this.res.destroyed) this.res.end(event(serialize(reply).toString()));
      return;
    }
    writeJson(this.res, status, serialize(reply));
  }
}

/**
 * A whole JSON answer in one write: the status line and headers go out with the body (Node
 * corks them into one `writev`), and a reply already serialised as bytes (tools/list) is sent
 * as it is, never re-encoded.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers?: Record<string, string>,
): void {
  // Answered already (a batch's reply after a timeout's): writing again would emit an error.
  if (res.writableEnded) return;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (headers) for (const name of Object.keys(headers)) res.setHeader(name, headers[name]!);
  res.writeHead(status, ['content-type', JSON_CONTENT_TYPE, 'content-length', String(length)]);
  res.end(body);
}

function serialize(reply: JsonRpcReply | JsonRpcReply[]): string | Buffer {
  return Array.isArray(reply) ? JSON.stringify(reply) : serializeReply(reply);
}

function event(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
