import { SPREADSHEET_IMPORT_MIME_TYPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import { driveErrors } from './drive-errors.ts';
import { FOLDER_MIME_TYPE } from './file-resource.ts';

const BY_EXTENSION: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  pdf: 'application/pdf',
  json: 'application/json',
};

/** The media's type without parameters; for `application/octet-stream`, guessed from the name as Drive does. */
export function mediaMimeType(contentType: string | undefined, name: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/octet-stream') return type;
  const extension = name?.split('.').pop()?.toLowerCase() ?? '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

export type ContentPlan =
  | { kind: 'import'; sourceMimeType: string }
  | { kind: 'empty-native'; mimeType: string }
  | { kind: 'blob'; mimeType: string };

/**
 * What Drive stores for a create, copy or upload: a conversion into a native spreadsheet (the
 * requested type is the spreadsheet type and the media is csv/tsv/xlsx/ods), an empty native file,
 * or the bytes as they are.
 */
export function planContent(
  requestedMimeType: string | undefined,
  media: { mimeType: string } | undefined,
): ContentPlan {
  if (requestedMimeType === SPREADSHEET_MIME_TYPE) {
    if (!media) return { kind: 'empty-native', mimeType: SPREADSHEET_MIME_TYPE };
    if ((SPREADSHEET_IMPORT_MIME_TYPES as readonly string[]).includes(media.mimeType)) {
      return { kind: 'import', sourceMimeType: media.mimeType };
    }
    throw driveErrors.conversionNotSupported('mimeType');
  }
  if (requestedMimeType === FOLDER_MIME_TYPE) {
    if (media) throw driveErrors.conversionNotSupported('mimeType');
    return { kind: 'empty-native', mimeType: FOLDER_MIME_TYPE };
  }
  if (requestedMimeType?.startsWith('application/vnd.google-apps.')) {
    // Docs, Slides, Forms… are not emulated.
    throw driveErrors.conversionNotSupported('mimeType');
  }
  return { kind: 'blob', mimeType: requestedMimeType ?? media?.mimeType ?? 'application/octet-stream' };
}
