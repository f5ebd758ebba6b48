/**
 * Google's method ids (as in the discovery documents, e.g. `sheets.spreadsheets.values.get`) for
 * the requests the emulator serves, so faults can be aimed at one method.
 */
const METHODS: Array<[method: string, path: RegExp, id: string]> = [
  ['GET', /^\/v4\/spreadsheets\/[^/]+\/values:batchGet$/, 'sheets.spreadsheets.values.batchGet'],
  [
    'POST',
    /^\/v4\/spreadsheets\/[^/]+\/values:batchGetByDataFilter$/,
    'sheets.spreadsheets.values.batchGetByDataFilter',
  ],
  ['POST', /^\/v4\/spreadsheets\/[^/]+\/values:batchUpdate$/, 'sheets.spreadsheets.values.batchUpdate'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+\/values:batchClear$/, 'sheets.spreadsheets.values.batchClear'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+:append$/, 'sheets.spreadsheets.values.append'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+:clear$/, 'sheets.spreadsheets.values.clear'],
  ['GET', /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/, 'sheets.spreadsheets.values.get'],
  ['PUT', /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/, 'sheets.spreadsheets.values.update'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+:batchUpdate$/, 'sheets.spreadsheets.batchUpdate'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+:getByDataFilter$/, 'sheets.spreadsheets.getByDataFilter'],
  ['POST', /^\/v4\/spreadsheets\/[^/]+\/sheets\/[^/]+:copyTo$/, 'sheets.spreadsheets.sheets.copyTo'],
  ['GET', /^\/v4\/spreadsheets\/[^/:]+$/, 'sheets.spreadsheets.get'],
  ['POST', /^\/v4\/spreadsheets\/?$/, 'sheets.spreadsheets.create'],
  ['GET', /^\/drive\/v3\/files\/?$/, 'drive.files.list'],
  ['POST', /^\/drive\/v3\/files\/?$/, 'drive.files.create'],
  ['POST', /^\/upload\/drive\/v3\/files\/?$/, 'drive.files.create'],
  ['PUT', /^\/upload\/drive\/v3\/files(\/[^/]+)?\/?$/, 'drive.files.upload'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/copy$/, 'drive.files.copy'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/export$/, 'drive.files.export'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/permissions\/?$/, 'drive.permissions.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/permissions\/?$/, 'drive.permissions.list'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.get'],
  ['PATCH', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.delete'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/comments\/?$/, 'drive.comments.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments\/?$/, 'drive.comments.list'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+$/, 'drive.comments.get'],
  ['PATCH', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+$/, 'drive.comments.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+$/, 'drive.comments.delete'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies\/?$/, 'drive.replies.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies\/?$/, 'drive.replies.list'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies\/[^/]+$/, 'drive.replies.get'],
  ['PATCH', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies\/[^/]+$/, 'drive.replies.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies\/[^/]+$/, 'drive.replies.delete'],
  ['GET', /^\/drive\/v3\/files\/[^/]+$/, 'drive.files.get'],
  ['PATCH', /^\/(upload\/)?drive\/v3\/files\/[^/]+$/, 'drive.files.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+$/, 'drive.files.delete'],
  ['GET', /^\/drive\/v3\/about$/, 'drive.about.get'],
];

/** The method id of an API request, or undefined for anything that is not a Sheets or Drive call. */
export function apiMethodOf(method: string, path: string): string | undefined {
  return METHODS.find(([verb, pattern]) => verb === method && pattern.test(path))?.[2];
}

/** Whether a path is a Sheets or Drive API call (where faults apply). */
export function isApiPath(path: string): boolean {
  return (
    path.startsWith('/v4/spreadsheets') ||
    path.startsWith('/drive/v3/') ||
    path.startsWith('/upload/drive/v3/')
  );
}
