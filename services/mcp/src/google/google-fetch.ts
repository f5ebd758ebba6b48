import { STATUS_CODES } from 'node:http';
import { pipeline, Readable, type Transform } from 'node:stream';
import * as consume from 'node:stream/consumers';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher, interceptors, request } from 'undici';

/**
 * gaxios's `fetchImplementation` for every Google call: the HTTP done by undici's `request` on
 * keep-alive connections (one pool per Google host), the answer handed back as the part of a fetch
 * `Response` that gaxios reads — status, headers, and the body as text, bytes, a blob or a stream —
 * so gaxios still parses it, and still turns a refusal into the `GaxiosError` google-errors.ts
 * classifies. Like fetch, it follows redirects and undoes gzip (googleapis asks Google for it;
 * by hand below, as undici's own decompress interceptor is experimental and warns at start-up).
 *
 * Why not Node's own fetch: its WHATWG machinery (a Request object per call, the fetch algorithm's
 * steps, a web stream for every body) was the largest share of the service's own CPU per tool call
 * in bench:latency's profile; `request` is the same HTTP client without it. Why written here:
 * neither gaxios nor undici offers a fetch-shaped function over `request`. (Not gaxios's default
 * node-fetch 3 either: see service.ts.)
 */
export function createGoogleFetch(
  dispatcher: Dispatcher = new Agent({ keepAliveTimeout: 30_000 }).compose(
    interceptors.redirect({ maxRedirections: 20 }),
  ),
): typeof fetch {
  async function googleFetch(url: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    if (typeof url !== 'string' && !(url instanceof URL))
      throw new TypeError('googleFetch takes a URL and its options, not a Request');
    const headers = requestHeaders(init.headers);
    const answer = await request(url, {
      dispatcher,
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: requestBody(init.body, headers),
      signal: init.signal ?? undefined,
    });
    return new GoogleAnswer(answer, init.method === 'HEAD') as unknown as Response;
  }
  return googleFetch as typeof fetch;
}

/** Header names and values in turn, as `request` takes them. */
function requestHeaders(headers: RequestInit['headers']): string[] {
  const flat: string[] = [];
  if (!headers) return flat;
  const entries = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries) flat.push(name!, value!);
  return flat;
}

/** The bodies gaxios hands on (JSON and form text, bytes, googleapis' multipart upload streams). */
function requestBody(
  body: RequestInit['body'],
  headers: string[],
): string | Uint8Array | Readable | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof Readable) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) {
    if (!headers.some((name, index) => index % 2 === 0 && name.toLowerCase() === 'content-type'))
      headers.push('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof Blob) return Readable.fromWeb(body.stream() as WebReadableStream);
  if (body instanceof ReadableStream) return Readable.fromWeb(body as WebReadableStream);
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function')
    return Readable.from(body as AsyncIterable<unknown>);
  throw new TypeError(
    `a Google request body of type ${body.constructor?.name ?? typeof body} is not supported`,
  );
}

/** The content codings fetch undoes (RFC 9110 §8.4.1), as Node's zlib decoders. */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** What gaxios reads of a fetch `Response`; gaxios adds `config` and `data` to it. */
class GoogleAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly redirected = false;
  readonly type = 'basic';
  readonly #received: Dispatcher.ResponseData['body'];
  /** The body as sent, or its decoder's output when Google compressed it. */
  readonly #body: Readable;

  constructor(answer: Dispatcher.ResponseData, head: boolean) {
    this.status = answer.statusCode;
    this.statusText = STATUS_CODES[answer.statusCode] ?? '';
    this.ok = answer.statusCode >= 200 && answer.statusCode < 300;
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const each of value) headers.append(name, each);
      else if (value !== undefined) headers.append(name, value);
    }
    this.headers = headers;
    this.#received = answer.body;
    const coding = headers.get('content-encoding')?.trim().toLowerCase();
    const decoder =
      coding && !head && this.status !== 204 && this.status !== 304 ? DECODERS[coding] : undefined;
    // pipeline listens for every error, and ends the decoder with it for whoever reads.
    this.#body = decoder ? pipeline(answer.body, decoder(), () => {}) : answer.body;
  }

  get bodyUsed(): boolean {
    return this.#received.bodyUsed;
  }

  get body(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.#body) as unknown as ReadableStream<Uint8Array>;
  }

  text(): Promise<string> {
    return consume.text(this.#body);
  }

  json(): Promise<unknown> {
    return consume.json(this.#body);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return consume.arrayBuffer(this.#body);
  }

  blob(): Promise<Blob> {
    return consume.blob(this.#body);
  }
}
