/** The spreadsheet in Google Sheets, from its id or the URL a tool took; at a tab when its id is known. */
export function sheetUrl(spreadsheetId: string, sheetId?: number | null): string {
  const id = /\/d\/([\w-]+)/.exec(spreadsheetId)?.[1] ?? spreadsheetId;
  return `https://docs.google.com/spreadsheets/d/${encodeURIComponent(id)}/edit${sheetId == null ? '' : `#gid=${sheetId}`}`;
}

/** A zero-based column's letters: 0 → A, 26 → AA. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}
