import type { Context } from 'koa';
import { accountFor } from './accounts.ts';
import {
  type AccessControl,
  type AccessMode,
  type Account,
  type Caller,
  type DriveFile,
  GOOGLE_SCOPES,
  SPREADSHEET_MIME_TYPE,
} from './contracts.ts';
import { googleErrors } from './google-error.ts';
import type { GrantStore } from './oauth/grant-store.ts';

const DRIVE_METADATA_READONLY = 'https://www.googleapis.com/auth/drive.metadata.readonly';

/** What a file's permissions give an account that does not own it (permissions-routes.ts accessOf). */
export type SharedAccess = (fileId: string, account: Account) => AccessMode | undefined;

/**
 * The bearer-token and scope checks of Google's APIs, over the emulator's grants. A file opens to
 * its owner, and to an account its permissions name (`shared`): read for a reader or commenter,
 * read and write for a writer.
 */
export function createAccessControl(
  grants: GrantStore,
  shared: SharedAccess = () => undefined,
): AccessControl {
  return {
    authenticate(ctx: Context, anyOfScopes: readonly string[]): Caller {
      const header = ctx.get('authorization');
      // Google also takes the token as an `access_token` query parameter.
      const token = /^bearer\s/i.test(header) ? header.slice(7).trim() : ctx.query.access_token?.toString();
      const access = token ? grants.findAccessToken(token) : undefined;
      if (!access) throw googleErrors.unauthenticated();
      if (!anyOfScopes.some((scope) => access.scopes.includes(scope)))
        throw googleErrors.insufficientScopes();
      return { account: accountFor(access.email), clientId: access.clientId, scopes: new Set(access.scopes) };
    },

    canAccess(
      caller: Caller,
      file: DriveFile,
      mode: AccessMode,
      api: 'sheets' | 'drive' = 'sheets',
    ): boolean {
      const owns = file.ownerEmail === caller.account.email;
      if (!owns) {
        const given = shared(file.id, caller.account);
        if (given === undefined || (mode === 'write' && given === 'read')) return false;
      }
      const has = (scope: string) => caller.scopes.has(scope);
      if (has(GOOGLE_SCOPES.drive)) return true;
      // The emulator keeps drive.file grants per file and client, not per account as Google does:
      // they count for the owner only (its Picker lists the account's own files).
      if (owns && has(GOOGLE_SCOPES.driveFile) && file.appClientIds.has(caller.clientId)) return true;
      if (api === 'sheets' && file.mimeType === SPREADSHEET_MIME_TYPE) {
        if (has(GOOGLE_SCOPES.spreadsheets)) return true;
        if (mode === 'read' && has(GOOGLE_SCOPES.spreadsheetsReadonly)) return true;
      }
      if (mode === 'read' && has(GOOGLE_SCOPES.driveReadonly)) return true;
      return api === 'drive' && mode === 'read' && has(DRIVE_METADATA_READONLY);
    },
  };
}

/** Scopes that let the Drive API read (list, get, export) and write (create, copy, update, delete). */
export const DRIVE_READ_SCOPES = [
  GOOGLE_SCOPES.drive,
  GOOGLE_SCOPES.driveReadonly,
  GOOGLE_SCOPES.driveFile,
  DRIVE_METADATA_READONLY,
] as const;
export const DRIVE_WRITE_SCOPES = [GOOGLE_SCOPES.drive, GOOGLE_SCOPES.driveFile] as const;
