import { z } from 'zod';

/** Paging of Drive's list calls, as the Drive tools ask for it and say it. */
export const pageSize = z.number().int().min(1).max(100).default(50);
export const pageToken = z
  .string()
  .max(500)
  .optional()
  .describe('From a previous call, to get the next page.');

export function nextPage(token: string | null | undefined): string {
  return token ? `\nMore: call again with pageToken=${JSON.stringify(token)}.` : '';
}

/** Google may search only part of every drive (corpora allDrives) and says so. */
export function incomplete(data: { incompleteSearch?: boolean | null }): string {
  return data.incompleteSearch
    ? '\nGoogle searched only part of the shared drives: narrow the search (a folderId, a longer text) to be sure.'
    : '';
}
