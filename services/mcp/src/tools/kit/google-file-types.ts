/** Drive MIME types the tools work with (developers.google.com/drive/api/guides/mime-types). */
export const SPREADSHEET_MIME = 'application/vnd.google-apps.spreadsheet';

/** What convert_file can export a native spreadsheet to. */
export const EXPORT_TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  pdf: 'application/pdf',
} as const;

/** Files Drive converts into a native spreadsheet on copy. */
export const IMPORTABLE_TYPES: ReadonlySet<string> = new Set([
  EXPORT_TYPES.xlsx,
  EXPORT_TYPES.csv,
  EXPORT_TYPES.ods,
  'application/vnd.ms-excel',
]);
