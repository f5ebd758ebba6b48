import type { drive_v3 } from 'googleapis';
import { z } from 'zod';
import { LIST_ALL_DRIVES } from './drive-options.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** Paging of Drive's list calls, as the Drive tools ask for it and say it. */
export const pageSize = z.number().int().min(1).max(100).default(50);
export const pageToken = z.string().max(500).optional();

export function nextPage(token: string | null | undefined): string {
  return token ? `\nMore: call again with pageToken=${JSON.stringify(token)}.` : '';
}

/**
 * A page of a Drive list as a tool answers it: the items under their name with the next page's
 * token, and a line per item (or `empty`) followed by how to get the next page and any `notice`.
 */
export function drivePageAnswer<Key extends string>(
  key: Key,
  items: unknown[],
  lines: string[],
  empty: string,
  nextPageToken: string | null | undefined,
  notice = '',
) {
  return {
    structuredContent: { [key]: items, nextPageToken: nextPageToken ?? null },
    text: (lines.length ? lines.join('\n') : empty) + nextPage(nextPageToken) + notice,
  };
}

/** Google may search only part of every drive (corpora allDrives) and says so. */
export function incomplete(data: { incompleteSearch?: boolean | null }): string {
  return data.incompleteSearch
    ? '\nGoogle searched only part of the shared drives: narrow the search (a folderId, a longer text) to be sure.'
    : '';
}

/** One page of a Drive search: the clauses of `q` (all must hold), its order, and the fields asked for. */
export interface DriveListing {
  clauses: string[];
  orderBy: string;
  pageSize: number;
  pageToken: string | undefined;
  fields: string;
}

/** One files.list over every drive the person sees (LIST_ALL_DRIVES): a page of the files that match. */
export async function listDriveFiles(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  listing: DriveListing,
): Promise<drive_v3.Schema$FileList> {
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    drive.files.list(
      {
        q: listing.clauses.join(' and '),
        orderBy: listing.orderBy,
        pageSize: listing.pageSize,
        pageToken: listing.pageToken,
        fields: listing.fields,
        ...LIST_ALL_DRIVES,
      },
      request,
    ),
  );
  return data;
}
