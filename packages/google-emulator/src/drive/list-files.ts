import { createHash } from 'node:crypto';
import type { DriveFile } from '../contracts.ts';
import { driveErrors } from './drive-errors.ts';
import type { FileQuery, QueryContext } from './query.ts';

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

type Comparator = (a: DriveFile, b: DriveFile) => number;

const ORDER_KEYS: Record<string, Comparator | undefined> = {
  modifiedTime: (a, b) => a.modifiedTime.localeCompare(b.modifiedTime),
  modifiedByMeTime: (a, b) => a.modifiedTime.localeCompare(b.modifiedTime),
  viewedByMeTime: (a, b) => a.modifiedTime.localeCompare(b.modifiedTime),
  recency: (a, b) => a.modifiedTime.localeCompare(b.modifiedTime),
  createdTime: (a, b) => a.createdTime.localeCompare(b.createdTime),
  name: (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  name_natural: (a, b) => a.name.localeCompare(b.name, 'en', { numeric: true, sensitivity: 'base' }),
  folder: (a, b) => Number(b.mimeType.endsWith('.folder')) - Number(a.mimeType.endsWith('.folder')),
  // Nothing is starred or shared in the emulator: these keys are accepted and order nothing.
  starred: () => 0,
  sharedWithMeTime: () => 0,
  quotaBytesUsed: (a, b) => (a.content?.length ?? 0) - (b.content?.length ?? 0),
};

/** Parses `orderBy` ("modifiedTime desc,name"); an unknown key is a 400 as at Google. */
export function parseOrderBy(orderBy: string | undefined): Comparator {
  const keys = (orderBy ?? 'modifiedTime desc')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const comparators = keys.map((key) => {
    const [name, direction, ...rest] = key.split(/\s+/);
    const compare = ORDER_KEYS[name ?? ''];
    if (!compare || rest.length > 0 || (direction && !/^(asc|desc)$/i.test(direction))) {
      throw driveErrors.invalidParameter('orderBy', `Invalid Value: orderBy key "${key}" is not supported`);
    }
    return direction?.toLowerCase() === 'desc' ? (a: DriveFile, b: DriveFile) => compare(b, a) : compare;
  });
  return (a, b) => {
    for (const compare of comparators) {
      const order = compare(a, b);
      if (order !== 0) return order;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

export function parsePageSize(pageSize: string | undefined): number {
  if (pageSize === undefined || pageSize === '') return DEFAULT_PAGE_SIZE;
  const size = Number(pageSize);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw driveErrors.invalidParameter(
      'pageSize',
      `Invalid value '${pageSize}'. Values must be within the range: [1, 1000]`,
    );
  }
  return size;
}

/**
 * One page of the caller's matching files. The page token carries the offset and a digest of the
 * query, so a token cannot be replayed against another query.
 */
export function listPage(
  files: DriveFile[],
  options: {
    query: FileQuery;
    callerEmail: string;
    textOf?: QueryContext['textOf'];
    order: Comparator;
    pageSize: number;
    pageToken?: string;
    queryKey: string;
  },
): { files: DriveFile[]; nextPageToken?: string } {
  const digest = createHash('sha256').update(options.queryKey).digest('base64url').slice(0, 16);
  let offset = 0;
  if (options.pageToken) {
    const decoded = decodePageToken(options.pageToken);
    if (!decoded || decoded.digest !== digest)
      throw driveErrors.invalidParameter('pageToken', 'Invalid Value');
    offset = decoded.offset;
  }
  const matching = files
    .filter((file) =>
      options.query(file, {
        callerEmail: options.callerEmail,
        ...(options.textOf ? { textOf: options.textOf } : {}),
      }),
    )
    .sort(options.order);
  const page = matching.slice(offset, offset + options.pageSize);
  const next = offset + options.pageSize;
  return next < matching.length
    ? { files: page, nextPageToken: encodePageToken(next, digest) }
    : { files: page };
}

function encodePageToken(offset: number, digest: string): string {
  return Buffer.from(JSON.stringify({ o: offset, d: digest })).toString('base64url');
}

function decodePageToken(token: string): { offset: number; digest: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      o?: unknown;
      d?: unknown;
    };
    if (
      typeof parsed.o === 'number' &&
      Number.isInteger(parsed.o) &&
      parsed.o >= 0 &&
      typeof parsed.d === 'string'
    ) {
      return { offset: parsed.o, digest: parsed.d };
    }
  } catch {}
  return undefined;
}
