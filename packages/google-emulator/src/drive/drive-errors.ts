import { GoogleApiError } from '../google-error.ts';

/** Drive v3's own error answers, worded as Drive words them. */
export const driveErrors = {
  fileNotFound: (fileId: string) =>
    new GoogleApiError({
      code: 404,
      status: 'NOT_FOUND',
      message: `File not found: ${fileId}.`,
      reason: 'notFound',
      location: 'fileId',
      locationType: 'parameter',
    }),
  insufficientFilePermissions: () =>
    new GoogleApiError({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'The user does not have sufficient permissions for this file.',
      reason: 'insufficientFilePermissions',
    }),
  fileNotDownloadable: () =>
    new GoogleApiError({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
      reason: 'fileNotDownloadable',
      location: 'alt',
      locationType: 'parameter',
    }),
  fileNotExportable: () =>
    new GoogleApiError({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'Export only supports Docs Editors files.',
      reason: 'fileNotExportable',
    }),
  conversionNotSupported: (location: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'The requested conversion is not supported.',
      reason: 'badRequest',
      location,
      locationType: 'parameter',
    }),
  invalidParameter: (name: string, message = `Invalid Value`) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'invalid',
      location: name,
      locationType: 'parameter',
    }),
  required: (name: string, message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'required',
      location: name,
      locationType: 'parameter',
    }),
};
