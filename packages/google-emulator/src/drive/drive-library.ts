import type { AccessControl, AccessMode, Caller, DriveFile, NativeSpreadsheets } from '../contracts.ts';
import { SPREADSHEET_EXPORT_MIME_TYPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import { mediaMimeType, planContent } from './conversion.ts';
import { driveErrors } from './drive-errors.ts';
import type { FileMetadata } from './file-metadata.ts';
import { isNative } from './file-resource.ts';
import type { MemoryFileStore } from './file-store.ts';
import { setTrashed } from './trash.ts';

export interface DriveDeps {
  files: MemoryFileStore;
  access: AccessControl;
  spreadsheets: NativeSpreadsheets;
  publicUrl: string;
}

export interface Media {
  contentType: string | undefined;
  body: Buffer;
}

/** Drive's file operations, with Google's visibility and permission rules. */
export function createDriveLibrary({ files, access, spreadsheets }: DriveDeps) {
  /**
   * The file, if the caller may see it: one it may not see at all is a 404 (Drive does not reveal
   * that it exists); one it may see but not change is a 403 for a write.
   */
  const fileFor = (caller: Caller, fileId: string, mode: AccessMode): DriveFile => {
    const file = files.get(fileId);
    if (!file || !access.canAccess(caller, file, 'read', 'drive')) throw driveErrors.fileNotFound(fileId);
    if (mode === 'write' && !access.canAccess(caller, file, 'write', 'drive')) {
      throw driveErrors.insufficientFilePermissions();
    }
    return file;
  };

  const create = async (
    caller: Caller,
    metadata: FileMetadata,
    media: Media | undefined,
  ): Promise<DriveFile> => {
    const name = metadata.name ?? 'Untitled';
    const mediaType = media ? mediaMimeType(media.contentType, metadata.name ?? undefined) : undefined;
    const plan = planContent(
      metadata.mimeType ?? undefined,
      media && mediaType ? { mimeType: mediaType } : undefined,
    );
    const base = {
      name,
      ownerEmail: caller.account.email,
      ...(metadata.parents ? { parents: metadata.parents } : {}),
    };
    if (plan.kind === 'blob') {
      return files.create(
        { ...base, mimeType: plan.mimeType, content: media?.body ?? Buffer.alloc(0) },
        caller.clientId,
      );
    }
    const mimeType = plan.kind === 'import' ? SPREADSHEET_MIME_TYPE : plan.mimeType;
    const file = files.create({ ...base, mimeType }, caller.clientId);
    try {
      if (plan.kind === 'import')
        await spreadsheets.importInto(file.id, name, media!.body, plan.sourceMimeType);
      else if (mimeType === SPREADSHEET_MIME_TYPE) spreadsheets.createEmpty(file.id, name);
    } catch (error) {
      files.delete(file.id);
      throw error;
    }
    return file;
  };

  return {
    fileFor,
    create,

    /** files.copy: the source as it is, or converted when `mimeType` asks for a native spreadsheet. */
    async copy(caller: Caller, sourceId: string, metadata: FileMetadata): Promise<DriveFile> {
      const source = fileFor(caller, sourceId, 'read');
      const name = metadata.name ?? `Copy of ${source.name}`;
      const targetType = metadata.mimeType ?? source.mimeType;
      const parents = metadata.parents ?? source.parents;
      // Without parents a copy stays beside its source, in its shared drive if it is in one.
      const driveId = metadata.parents ? undefined : source.driveId;
      if (isNative(source)) {
        if (targetType !== source.mimeType) throw driveErrors.conversionNotSupported('mimeType');
        const copy = files.create(
          { name, mimeType: source.mimeType, ownerEmail: caller.account.email, parents, driveId },
          caller.clientId,
        );
        if (source.mimeType === SPREADSHEET_MIME_TYPE) spreadsheets.copy(source.id, copy.id, name);
        return copy;
      }
      const copy = await create(
        caller,
        { name, parents, mimeType: targetType },
        { contentType: source.mimeType, body: source.content ?? Buffer.alloc(0) },
      );
      if (driveId !== undefined && copy.driveId === undefined) copy.driveId = driveId;
      return copy;
    },

    /** files.export of a native spreadsheet into one of the export types. */
    async export(caller: Caller, fileId: string, mimeType: string | undefined): Promise<Buffer> {
      if (!mimeType) throw driveErrors.required('mimeType', 'Required parameter: mimeType');
      const file = fileFor(caller, fileId, 'read');
      if (!isNative(file)) throw driveErrors.fileNotExportable();
      if (
        file.mimeType !== SPREADSHEET_MIME_TYPE ||
        !(SPREADSHEET_EXPORT_MIME_TYPES as readonly string[]).includes(mimeType)
      ) {
        throw driveErrors.conversionNotSupported('mimeType');
      }
      return spreadsheets.exportAs(file.id, mimeType);
    },

    /**
     * files.update: rename, trash or restore (`trashed`), move; new bytes for a non-native file.
     * Any change moves modifiedTime, and with it `version`
     * (https://developers.google.com/workspace/drive/api/reference/rest/v3/files).
     */
    async update(
      caller: Caller,
      fileId: string,
      metadata: FileMetadata,
      parentChanges: { add: string[]; remove: string[] },
      media: Media | undefined,
    ): Promise<DriveFile> {
      const file = fileFor(caller, fileId, 'write');
      if (metadata.mimeType && metadata.mimeType !== file.mimeType)
        throw driveErrors.conversionNotSupported('mimeType');
      if (media) {
        if (file.mimeType === SPREADSHEET_MIME_TYPE) {
          const sourceType = mediaMimeType(media.contentType, metadata.name ?? undefined);
          const plan = planContent(SPREADSHEET_MIME_TYPE, { mimeType: sourceType });
          if (plan.kind === 'import')
            await spreadsheets.importInto(file.id, metadata.name ?? file.name, media.body, sourceType);
        } else if (isNative(file)) {
          throw driveErrors.conversionNotSupported('uploadType');
        } else {
          file.content = media.body;
        }
      }
      if (metadata.name !== undefined && metadata.name !== null && metadata.name !== file.name) {
        file.name = metadata.name;
        if (file.mimeType === SPREADSHEET_MIME_TYPE) spreadsheets.rename(file.id, file.name);
      }
      if (typeof metadata.trashed === 'boolean') setTrashed(files, file, metadata.trashed);
      if (parentChanges.add.length > 0 || parentChanges.remove.length > 0) {
        file.parents = [
          ...new Set([
            ...file.parents.filter((id) => !parentChanges.remove.includes(id)),
            ...parentChanges.add,
          ]),
        ];
      }
      files.touch(file.id);
      return file;
    },

    delete(caller: Caller, fileId: string): void {
      const file = fileFor(caller, fileId, 'write');
      // In My Drive only the owner deletes a file; a writer it is shared with may not.
      if (file.driveId === undefined && file.ownerEmail !== caller.account.email)
        throw driveErrors.insufficientFilePermissions();
      files.delete(file.id);
      if (file.mimeType === SPREADSHEET_MIME_TYPE) spreadsheets.delete(file.id);
    },
  };
}

export type DriveLibrary = ReturnType<typeof createDriveLibrary>;
