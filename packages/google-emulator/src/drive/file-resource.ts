import { createHash } from 'node:crypto';
import type { drive_v3 } from 'googleapis';
import { accountFor } from '../accounts.ts';
import { type DriveFile, SPREADSHEET_EXPORT_MIME_TYPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import { applyFieldMask, type KnownFields, parseFieldMask } from './fields.ts';

export const FOLDER_MIME_TYPE = 'application/vnd.google-apps.folder';

export function isNative(file: Pick<DriveFile, 'mimeType'>): boolean {
  return file.mimeType.startsWith('application/vnd.google-apps.');
}

/**
 * The full `drive#file` resource (what `fields=*` returns) as `viewerEmail` sees it. `owners` is a
 * list of Drive User resources (https://developers.google.com/workspace/drive/api/reference/rest/v3/User:
 * `kind` `drive#user`, `displayName`, `emailAddress`, `permissionId`, and `me`, "whether this user is
 * the requesting user"); a file in a shared drive has none, nor `ownedByMe` ("not populated for items
 * in shared drives", https://developers.google.com/workspace/drive/api/reference/rest/v3/files).
 */
export function fileResource(file: DriveFile, publicUrl: string, viewerEmail: string): drive_v3.Schema$File {
  const owner = accountFor(file.ownerEmail);
  const native = isNative(file);
  const ownedByViewer = owner.email === viewerEmail.toLowerCase();
  const user: drive_v3.Schema$User = {
    kind: 'drive#user',
    displayName: owner.name,
    emailAddress: owner.email,
    me: ownedByViewer,
    permissionId: owner.sub,
  };
  const inSharedDrive = file.driveId !== undefined;
  return {
    kind: 'drive#file',
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    parents: file.parents.length > 0 ? file.parents : [file.driveId ?? 'root'],
    ...(file.driveId ? { driveId: file.driveId, teamDriveId: file.driveId } : {}),
    trashed: file.trashed,
    explicitlyTrashed: file.explicitlyTrashed ?? file.trashed,
    starred: false,
    createdTime: file.createdTime,
    modifiedTime: file.modifiedTime,
    modifiedByMeTime: file.modifiedTime,
    viewedByMeTime: file.modifiedTime,
    modifiedByMe: ownedByViewer,
    ...(inSharedDrive ? {} : { ownedByMe: ownedByViewer, owners: [user] }),
    shared: false,
    lastModifyingUser: user,
    version: String(Date.parse(file.modifiedTime)),
    // Links point where Google's do; the emulator serves no documents UI.
    webViewLink:
      file.mimeType === SPREADSHEET_MIME_TYPE
        ? `https://docs.google.com/spreadsheets/d/${file.id}/edit?usp=drivesdk`
        : `https://drive.google.com/file/d/${file.id}/view?usp=drivesdk`,
    iconLink: `https://drive-thirdparty.googleusercontent.com/16/type/${file.mimeType}`,
    capabilities: {
      canEdit: true,
      canCopy: true,
      canDownload: true,
      canTrash: true,
      canDelete: true,
      canRename: true,
    },
    ...(native
      ? {
          quotaBytesUsed: '0',
          ...(file.mimeType === SPREADSHEET_MIME_TYPE
            ? {
                exportLinks: Object.fromEntries(
                  SPREADSHEET_EXPORT_MIME_TYPES.map((type) => [
                    type,
                    `${publicUrl}/drive/v3/files/${file.id}/export?mimeType=${encodeURIComponent(type)}`,
                  ]),
                ),
              }
            : {}),
        }
      : {
          size: String(file.content?.length ?? 0),
          quotaBytesUsed: String(file.content?.length ?? 0),
          md5Checksum: createHash('md5')
            .update(file.content ?? Buffer.alloc(0))
            .digest('hex'),
          webContentLink: `${publicUrl}/drive/v3/files/${file.id}?alt=media`,
          originalFilename: file.name,
          fullFileExtension: extensionOf(file.name),
          fileExtension: extensionOf(file.name),
        }),
  };
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
}

/** The File keys Google knows, so that a misspelt `fields` is a 400 as at Google. */
const FILE_KEYS = new Set<string>([
  'kind',
  'id',
  'name',
  'mimeType',
  'description',
  'starred',
  'trashed',
  'explicitlyTrashed',
  'parents',
  'properties',
  'appProperties',
  'spaces',
  'version',
  'webContentLink',
  'webViewLink',
  'iconLink',
  'hasThumbnail',
  'thumbnailLink',
  'thumbnailVersion',
  'viewedByMe',
  'viewedByMeTime',
  'createdTime',
  'modifiedTime',
  'modifiedByMeTime',
  'modifiedByMe',
  'sharedWithMeTime',
  'sharingUser',
  'owners',
  'driveId',
  'lastModifyingUser',
  'shared',
  'ownedByMe',
  'capabilities',
  'viewersCanCopyContent',
  'copyRequiresWriterPermission',
  'writersCanShare',
  'permissions',
  'permissionIds',
  'hasAugmentedPermissions',
  'folderColorRgb',
  'originalFilename',
  'fullFileExtension',
  'fileExtension',
  'md5Checksum',
  'sha1Checksum',
  'sha256Checksum',
  'size',
  'quotaBytesUsed',
  'headRevisionId',
  'contentHints',
  'imageMediaMetadata',
  'videoMediaMetadata',
  'isAppAuthorized',
  'exportLinks',
  'shortcutDetails',
  'contentRestrictions',
  'resourceKey',
  'linkShareMetadata',
  'labelInfo',
  'trashedTime',
  'trashingUser',
  'downloadRestrictions',
  'inheritedPermissionsDisabled',
  'teamDriveId',
]);
export const FILE_FIELDS: KnownFields = { keys: FILE_KEYS };
export const FILE_LIST_FIELDS: KnownFields = {
  keys: new Set(['kind', 'nextPageToken', 'incompleteSearch', 'files']),
  nested: { files: FILE_FIELDS },
};

/** What files.get returns without `fields`. */
const DEFAULT_FILE_MASK = parseFieldMask('kind,id,name,mimeType');
/** What files.list returns without `fields`. */
const DEFAULT_LIST_MASK = parseFieldMask('kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)');

export function selectFileFields(
  resource: drive_v3.Schema$File,
  fields: string | undefined,
): drive_v3.Schema$File {
  const mask = fields ? parseFieldMask(fields) : DEFAULT_FILE_MASK;
  return applyFieldMask(resource, mask, FILE_FIELDS) as drive_v3.Schema$File;
}

export function selectFileListFields(
  list: drive_v3.Schema$FileList,
  fields: string | undefined,
): drive_v3.Schema$FileList {
  const mask = fields ? parseFieldMask(fields) : DEFAULT_LIST_MASK;
  return applyFieldMask(list, mask, FILE_LIST_FIELDS) as drive_v3.Schema$FileList;
}
