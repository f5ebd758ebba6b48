import type { Context } from 'koa';
import { type JsonRpcNotification, type JsonRpcReply, serializeReply } from './json-rpc.ts';

/**
 * How one request's answer reaches the client (MCP Streamable HTTP): plain JSON, unless the
 * request sends a notification (progress) before its result and the client accepts
 * text/event-stream; then the response becomes an SSE stream that carries the notifications
 * and ends with the result. A call that reports nothing pays nothing for streaming.
 */
export class ReplyChannel {
  readonly ctx: Context;
  readonly canStream: boolean;
  #streaming = false;
  #done = false;

  constructor(ctx: Context, canStream: boolean) {
    this.ctx = ctx;
    this.canStream = canStream;
  }

  notify(notification: JsonRpcNotification): void {
    if (!this.canStream || this.#done || this.ctx.res.destroyed) return;
    const res = this.ctx.res;
    if (!this.#streaming) {
      this.#streaming = true;
      this.ctx.status = 200;
      // Koa must not write its own answer after this one has begun.
      this.ctx.respond = false;
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
      if (!this.ctx.res.destroyed) this.ctx.res.end(event(serialize(reply).toString()));
      return;
    }
    this.ctx.status = status;
    this.ctx.type = 'application/json';
    this.ctx.body = serialize(reply);
  }
}

function serialize(reply: JsonRpcReply | JsonRpcReply[]): string | Buffer {
  return Array.isArray(reply) ? JSON.stringify(reply) : serializeReply(reply);
}

function event(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
