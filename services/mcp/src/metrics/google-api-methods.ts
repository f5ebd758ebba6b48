/**
 * Names the Google API method behind a request URL (`sheets.spreadsheets.values.get`), so the
 * metrics count Google calls by method without ever taking a spreadsheet id or a range as a label.
 * The table covers what the tools call (Sheets v4, Drive v3, with uploads); anything else is `other`.
 */
const METHODS: Array<[httpMethod: string, path: RegExp, name: string]> = [
  ['POST', /^\/v4\/spreadsheets$/, 'sheets.spreadsheets.create'],
  ['GET', /^\/v4\/spreadsheets\/[^/:]+$/, 'sheets.spreadsheets.get'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+:batchUpdate$/, 'sheets.spreadsheets.batchUpdate'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+:getByDataFilter$/, 'sheets.spreadsheets.getByDataFilter'],
  ['GET', /^\/v4\/spreadsheets\/[^/:]+\/values:batchGet$/, 'sheets.spreadsheets.values.batchGet'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+\/values:batchUpdate$/, 'sheets.spreadsheets.values.batchUpdate'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+\/values:batchClear$/, 'sheets.spreadsheets.values.batchClear'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+\/values\/[^/]+:append$/, 'sheets.spreadsheets.values.append'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+\/values\/[^/]+:clear$/, 'sheets.spreadsheets.values.clear'],
  ['GET', /^\/v4\/spreadsheets\/[^/:]+\/values\/[^/:]+$/, 'sheets.spreadsheets.values.get'],
  ['PUT', /^\/v4\/spreadsheets\/[^/:]+\/values\/[^/:]+$/, 'sheets.spreadsheets.values.update'],
  ['POST', /^\/v4\/spreadsheets\/[^/:]+\/sheets\/[^/:]+:copyTo$/, 'sheets.spreadsheets.sheets.copyTo'],
  ['GET', /^\/drive\/v3\/files$/, 'drive.files.list'],
  ['POST', /^(\/upload)?\/drive\/v3\/files$/, 'drive.files.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+$/, 'drive.files.get'],
  ['PATCH', /^(\/upload)?\/drive\/v3\/files\/[^/]+$/, 'drive.files.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+$/, 'drive.files.delete'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/copy$/, 'drive.files.copy'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/export$/, 'drive.files.export'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/permissions$/, 'drive.permissions.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/permissions$/, 'drive.permissions.list'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.get'],
  ['PATCH', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.update'],
  ['DELETE', /^\/drive\/v3\/files\/[^/]+\/permissions\/[^/]+$/, 'drive.permissions.delete'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/comments$/, 'drive.comments.create'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments$/, 'drive.comments.list'],
  ['GET', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+$/, 'drive.comments.get'],
  ['POST', /^\/drive\/v3\/files\/[^/]+\/comments\/[^/]+\/replies$/, 'drive.replies.create'],
];

export function googleApiMethod(httpMethod: string, url: string | URL): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return 'other';
  }
  const method = httpMethod.toUpperCase();
  for (const [verb, pattern, name] of METHODS) if (verb === method && pattern.test(path)) return name;
  return 'other';
}
