/** The spreadsheet in Google Sheets, from its id or the URL a tool took; at a tab when its id is known. */
export function sheetUrl(spreadsheetId: string, sheetId?: number | null): string {
  const id = /\/d\/([\w-]+)/.exec(spreadsheetId)?.[1] ?? spreadsheetId;
  return `https://docs.google.com/spreadsheets/d/${encodeURIComponent(id)}/edit${sheetId == null ? '' : `#gid=${sheetId}`}`;
}
