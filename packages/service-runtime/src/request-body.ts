import type { IncomingMessage } from 'node:http';

/** How much of a refused body is still read (and thrown away) so the refusal can be delivered. */
const DEFAULT_DRAIN_LIMIT = 8 * 1024 * 1024;

/**
 * The request body if it is at most `limit` bytes, else `undefined` (the caller answers 413).
 *
 * A body over the limit is still read to its end, up to `drainLimit`, and discarded. Answering
 * while the client is still sending makes Node close a socket with unread data, which resets the
 * connection: a client sees an error instead of the 413, and a proxy in front (the local gateway,
 * an ingress) reports it as 502. Bodies declared or found larger than `drainLimit` are not read;
 * the caller should then send `Connection: close`.
 */
export async function readBodyUpTo(
  req: IncomingMessage,
  limit: number,
  drainLimit = DEFAULT_DRAIN_LIMIT,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > drainLimit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > drainLimit) return undefined;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size <= limit ? Buffer.concat(chunks) : undefined;
}
