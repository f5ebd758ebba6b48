import type { drive_v3 } from 'googleapis';
import { googleErrors } from '../google-error.ts';

/** The writable File fields the emulator keeps. */
export type FileMetadata = Pick<
  drive_v3.Schema$File,
  'name' | 'mimeType' | 'parents' | 'trashed' | 'description'
>;

/** Validates a request body as File metadata; Google answers a wrong type with a 400. */
export function parseFileMetadata(body: unknown): FileMetadata {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw googleErrors.badRequest('Invalid JSON payload received. Expected an object.', 'parseError');
  }
  const input = body as Record<string, unknown>;
  const metadata: FileMetadata = {};
  for (const key of ['name', 'mimeType', 'description'] as const) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string')
      throw googleErrors.badRequest(`Invalid value for "${key}": expected a string.`, 'invalid');
    metadata[key] = value;
  }
  if (input.trashed !== undefined) {
    if (typeof input.trashed !== 'boolean')
      throw googleErrors.badRequest('Invalid value for "trashed": expected a boolean.', 'invalid');
    metadata.trashed = input.trashed;
  }
  if (input.parents !== undefined) {
    if (!Array.isArray(input.parents) || !input.parents.every((parent) => typeof parent === 'string')) {
      throw googleErrors.badRequest('Invalid value for "parents": expected an array of ids.', 'invalid');
    }
    metadata.parents = input.parents as string[];
  }
  return metadata;
}
