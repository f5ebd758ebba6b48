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
 * the caller should then send `Connection: close`. `pastLimit`, when given, is handed every chunk
 * of a body over the limit, from its first byte, in order, as it arrives (and none is kept): a
 * caller may learn what such a body is without holding it.
 */
export function readBodyUpTo(
  req: IncomingMessage,
  limit: number,
  drainLimit = DEFAULT_DRAIN_LIMIT,
  pastLimit?: (chunk: Buffer) => void,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > drainLimit) return Promise.resolve(undefined);
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // Stream events rather than `for await`: the async iterator's promise per chunk and its
  // end-of-stream bookkeeping were a measurable share of the MCP endpoint's time per request
  // (bodies there are a few hundred bytes, one chunk).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainLimit) {
        stop();
        // As `for await` does when left early: the rest is never read, the connection is dropped.
        req.destroy();
        resolve(undefined);
        return;
      }
      if (size <= limit) chunks.push(chunk);
      else if (pastLimit) {
        for (const kept of chunks.splice(0)) pastLimit(kept);
        pastLimit(chunk);
      }
    };
    const onEnd = () => {
      stop();
      if (size > limit) resolve(undefined);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end: the client went away mid-body.
    const onClose = () => onError(new Error('the request closed before its body ended'));
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
