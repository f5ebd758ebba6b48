import { googleErrors } from '../google-error.ts';

export interface MediaPart {
  contentType: string;
  body: Buffer;
}

/**
 * Splits a `multipart/related` upload (RFC 2387) into its metadata and media parts, as Drive's
 * `uploadType=multipart` expects: first a JSON part, then the file's bytes.
 */
export function parseMultipartRelated(
  contentType: string,
  body: Buffer,
): { metadata: unknown; media: MediaPart } {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) throw googleErrors.badRequest('Multipart upload has no boundary.', 'badContent');
  const delimiter = Buffer.from(`--${marker}`);
  const parts: Buffer[] = [];
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const afterDelimiter = start + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, afterDelimiter);
    if (next < 0) break;
    parts.push(body.subarray(skipLineBreak(body, afterDelimiter), trimLineBreak(body, next)));
    start = next;
  }
  if (parts.length !== 2) {
    throw googleErrors.badRequest(
      `Multipart upload must have 2 parts (metadata and media), got ${parts.length}.`,
      'badContent',
    );
  }
  const [metadataPart, mediaPart] = parts.map(splitHeaders) as [
    ReturnType<typeof splitHeaders>,
    ReturnType<typeof splitHeaders>,
  ];
  let metadata: unknown;
  try {
    const text = metadataPart.body.toString('utf8').trim();
    metadata = text ? JSON.parse(text) : {};
  } catch {
    throw googleErrors.badRequest(
      'The metadata part of the multipart upload is not valid JSON.',
      'parseError',
    );
  }
  return {
    metadata,
    media: {
      contentType: mediaPart.headers['content-type'] ?? 'application/octet-stream',
      body: mediaPart.body,
    },
  };
}

function splitHeaders(part: Buffer) {
  const end = part.indexOf('\r\n\r\n');
  const headerText = end >= 0 ? part.subarray(0, end).toString('utf8') : '';
  const headers: Record<string, string> = {};
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: end >= 0 ? part.subarray(end + 4) : part };
}

function skipLineBreak(body: Buffer, at: number): number {
  if (body[at] === 0x0d && body[at + 1] === 0x0a) return at + 2;
  return body[at] === 0x0a ? at + 1 : at;
}

function trimLineBreak(body: Buffer, at: number): number {
  if (body[at - 2] === 0x0d && body[at - 1] === 0x0a) return at - 2;
  return body[at - 1] === 0x0a ? at - 1 : at;
}
