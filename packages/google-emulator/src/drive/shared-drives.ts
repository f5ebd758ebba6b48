import type { Context, Next } from 'koa';
import type { DriveFile } from '../contracts.ts';
import { driveErrors } from './drive-errors.ts';
import type { FileMetadata } from './file-metadata.ts';
import type { MemoryFileStore } from './file-store.ts';

/**
 * Drive's shared-drive flags. A file in a shared drive exists, to a request, only when it says
 * `supportsAllDrives=true` (an app that does not is assumed not to understand shared drives, and
 * Google answers 404 as if the file were not there); files.list returns shared-drive items only
 * with `includeItemsFromAllDrives=true` and a corpus that holds them (`allDrives`, or `drive` with
 * its `driveId`).
 */
export interface AllDrivesFlags {
  supportsAllDrives: boolean;
  includeItemsFromAllDrives: boolean;
  corpora: 'user' | 'domain' | 'drive' | 'allDrives';
  driveId: string | undefined;
}

const CORPORA = ['user', 'domain', 'drive', 'allDrives'] as const;

function flag(ctx: Context, name: string): boolean {
  const raw = ctx.query[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.toLowerCase();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw driveErrors.invalidParameter(name, `Invalid value '${value}'. Values must be true or false`);
}

/** The flags of a request, checked as Google checks them (a bad combination is a 400). */
export function allDrivesFlags(ctx: Context): AllDrivesFlags {
  const rawCorpora = ctx.query.corpora;
  const corpora = (Array.isArray(rawCorpora) ? rawCorpora[0] : rawCorpora) || 'user';
  if (!(CORPORA as readonly string[]).includes(corpora)) {
    throw driveErrors.invalidParameter(
      'corpora',
      `Invalid value '${corpora}'. Values must be one of: user, domain, drive, allDrives`,
    );
  }
  const rawDriveId = ctx.query.driveId;
  const driveId = (Array.isArray(rawDriveId) ? rawDriveId[0] : rawDriveId) || undefined;
  const flags: AllDrivesFlags = {
    supportsAllDrives: flag(ctx, 'supportsAllDrives') || flag(ctx, 'supportsTeamDrives'),
    includeItemsFromAllDrives: flag(ctx, 'includeItemsFromAllDrives') || flag(ctx, 'includeTeamDriveItems'),
    corpora: corpora as AllDrivesFlags['corpora'],
    driveId,
  };
  if ((flags.corpora === 'drive') !== (driveId !== undefined)) {
    throw driveErrors.invalidParameter(
      'driveId',
      'The driveId parameter must be specified if and only if corpora is set to drive.',
    );
  }
  if ((flags.corpora === 'drive' || flags.corpora === 'allDrives') && !flags.includeItemsFromAllDrives) {
    throw driveErrors.invalidParameter(
      'includeItemsFromAllDrives',
      'The includeItemsFromAllDrives parameter must be set to true when corpora is set to drive or allDrives.',
    );
  }
  if (flags.includeItemsFromAllDrives && !flags.supportsAllDrives) {
    throw driveErrors.invalidParameter(
      'supportsAllDrives',
      'The includeItemsFromAllDrives parameter can only be set to true when supportsAllDrives is also true.',
    );
  }
  return flags;
}

/** Whether files.list with these flags returns `file`. */
export function listedWith(flags: AllDrivesFlags, file: DriveFile): boolean {
  if (flags.corpora === 'drive') return file.driveId === flags.driveId;
  if (file.driveId === undefined) return true;
  return flags.includeItemsFromAllDrives && flags.corpora === 'allDrives';
}

/**
 * Router param middleware for `:fileId`: a shared-drive file is not found by a request that does
 * not say `supportsAllDrives=true`.
 */
export function sharedDriveGate(files: MemoryFileStore) {
  return async (fileId: string, ctx: Context, next: Next) => {
    const file = files.get(fileId);
    if (file?.driveId !== undefined && !allDrivesFlags(ctx).supportsAllDrives) {
      throw driveErrors.fileNotFound(fileId);
    }
    return next();
  };
}

/**
 * The parents a new file names (create, copy): each must exist and be writable by the caller
 * (under drive.file, a folder the app created or was opened with), as Google answers 404 for a
 * parent it cannot find or write into; `root` is My Drive's root.
 */
export function checkParents(
  ctx: Context,
  files: MemoryFileStore,
  metadata: FileMetadata,
  writable: (file: DriveFile) => boolean,
): void {
  const supportsAllDrives = allDrivesFlags(ctx).supportsAllDrives;
  for (const parentId of metadata.parents ?? []) {
    if (parentId === 'root') continue;
    const parent = files.get(parentId);
    if (!parent || !writable(parent) || (parent.driveId !== undefined && !supportsAllDrives)) {
      throw driveErrors.fileNotFound(parentId);
    }
  }
}
