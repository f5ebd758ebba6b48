/**
 * The seams between the emulator's parts, so that OAuth, Drive and Sheets can be written and read
 * separately. Response bodies use the `googleapis` schema types (`sheets_v4.Schema$…`,
 * `drive_v3.Schema$…`); these interfaces only describe the emulator's own state.
 */
import type { Context } from 'koa';

export const GOOGLE_SCOPES = {
  openid: 'openid',
  email: 'email',
  profile: 'profile',
  spreadsheets: 'https://www.googleapis.com/auth/spreadsheets',
  spreadsheetsReadonly: 'https://www.googleapis.com/auth/spreadsheets.readonly',
  drive: 'https://www.googleapis.com/auth/drive',
  driveReadonly: 'https://www.googleapis.com/auth/drive.readonly',
  driveFile: 'https://www.googleapis.com/auth/drive.file',
} as const;

export interface Account {
  /** Stable Google subject id (digits, like Google's). */
  sub: string;
  email: string;
  name: string;
  /** The Workspace domain (`hd` in ID tokens and userinfo); absent for a consumer account. */
  hostedDomain?: string;
}

/** Who is calling an API: resolved from a valid, unexpired access token. */
export interface Caller {
  account: Account;
  clientId: string;
  /** Granted scopes, as full scope strings. */
  scopes: ReadonlySet<string>;
}

/** A file in an account's Drive. Native spreadsheets have `mimeType` SPREADSHEET_MIME_TYPE. */
export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  ownerEmail: string;
  createdTime: string;
  modifiedTime: string;
  /** In the trash, on its own or with a folder that holds it. */
  trashed: boolean;
  /** Trashed on its own, not with a folder (drive/trash.ts); absent means as `trashed`. */
  explicitlyTrashed?: boolean;
  parents: string[];
  /** OAuth clients that created or opened this file: what `drive.file` lets them see. */
  appClientIds: Set<string>;
  /** Bytes of a non-native file (xlsx, csv, pdf, …). Native spreadsheets live in the SpreadsheetStore. */
  content?: Buffer;
  /** The shared drive holding the file (its owner is then a member); absent in My Drive. */
  driveId?: string;
}

export const SPREADSHEET_MIME_TYPE = 'application/vnd.google-apps.spreadsheet';

export type AccessMode = 'read' | 'write';

export interface FileStore {
  get(id: string): DriveFile | undefined;
  /** Creates a file with a fresh id, owned by `ownerEmail`, visible to `clientId` under drive.file. */
  create(
    file: Pick<DriveFile, 'name' | 'mimeType' | 'ownerEmail'> &
      Partial<Pick<DriveFile, 'parents' | 'content' | 'id' | 'driveId'>>,
    clientId: string,
  ): DriveFile;
  /** Marks the file modified now. */
  touch(id: string): void;
  delete(id: string): void;
  listByOwner(ownerEmail: string): DriveFile[];
}

/**
 * The access check every Sheets and Drive handler calls. Throws a GoogleApiError shaped as Google
 * answers: 401 without a valid token, 403 insufficientPermissions for missing scopes, 404 (Drive)
 * or 403 (Sheets) for a file the caller may not see, 403 for writes under read-only scopes.
 */
export interface AccessControl {
  /** Authenticates the request's bearer token; needs at least one of `anyOfScopes`. */
  authenticate(ctx: Context, anyOfScopes: readonly string[]): Caller;
  /**
   * Whether `caller` may read or write `file`, honouring spreadsheets / drive.readonly / drive.file.
   * `api` (default 'sheets') matters because the spreadsheets scopes open files to the Sheets API
   * only: through the Drive API a token with `spreadsheets` + `drive.file` sees only app files.
   */
  canAccess(caller: Caller, file: DriveFile, mode: AccessMode, api?: 'sheets' | 'drive'): boolean;
}

/**
 * What the Drive API needs from the Sheets part: the contents of native spreadsheets live in the
 * Sheets model, keyed by the Drive file id. The Sheets part provides an implementation (see
 * `src/native-spreadsheets.ts` for how the emulator adapts it); Drive calls it for create,
 * conversion on upload and copy, export, rename, delete, and the admin reset.
 */
export interface NativeSpreadsheets {
  /** An empty spreadsheet (one sheet, "Sheet1") for a native file Drive just created. */
  createEmpty(fileId: string, title: string): void;
  /** Converts csv / tsv / xlsx / ods bytes into the native spreadsheet `fileId`. */
  importInto(fileId: string, title: string, bytes: Buffer, sourceMimeType: string): Promise<void>;
  /** Exports `fileId` as csv (first sheet), tsv, xlsx, ods or pdf. */
  exportAs(fileId: string, targetMimeType: string): Promise<Buffer>;
  /** A copy of spreadsheet `fromId` as `toId` titled `title`. */
  copy(fromId: string, toId: string, title: string): void;
  rename(fileId: string, title: string): void;
  /** The text a person typed into the spreadsheet's cells, every tab: what Drive's `fullText` searches. */
  textOf(fileId: string): string;
  delete(fileId: string): void;
  /** Forgets every spreadsheet (admin reset). */
  reset(): void;
}

/** The mime types Drive converts into a native spreadsheet, and exports one to. */
export const SPREADSHEET_IMPORT_MIME_TYPES = [
  'text/csv',
  'text/tab-separated-values',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/x-vnd.oasis.opendocument.spreadsheet',
] as const;
export const SPREADSHEET_EXPORT_MIME_TYPES = [
  'text/csv',
  'text/tab-separated-values',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/x-vnd.oasis.opendocument.spreadsheet',
  'application/pdf',
] as const;

/** What the emulator passes to the Sheets part's `createSheetsRouter(deps)`. */
export interface SheetsRouterDeps {
  files: FileStore;
  access: AccessControl;
  /** The emulator's public origin (no trailing slash), e.g. for `spreadsheetUrl`. */
  publicUrl: string;
}
