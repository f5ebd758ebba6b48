/**
 * A1 notation helpers for building ranges the Sheets API accepts. A tab name needs quotes when it
 * is anything but letters, digits and underscores (or looks like a cell or column reference), and a quote
 * inside it is doubled: `It's` → `'It''s'`.
 */
export function quoteSheetName(title: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(title) &&
    !/^[A-Za-z]{1,3}[0-9]*$/.test(title) &&
    !/^R\d*C\d*$/i.test(title);
  return plain ? title : `'${title.replaceAll("'", "''")}'`;
}

/** `'Tab name'!A1:C9`, or just the quoted tab when no cells are given (the whole sheet). */
export function rangeOnSheet(sheetTitle: string, cells?: string): string {
  const sheet = quoteSheetName(sheetTitle);
  return cells ? `${sheet}!${cells}` : sheet;
}

/**
 * Accepts what a model writes — `Sheet1!A1:B2`, `'My tab'!A:A`, `My tab!A1` (unquoted, with a
 * space), a bare `A1:B2` — and returns a range with the tab name quoted correctly.
 */
export function normalizeRange(range: string): string {
  const trimmed = range.trim();
  const bang = sheetSeparator(trimmed);
  if (bang === -1) return trimmed;
  const sheetPart = trimmed.slice(0, bang);
  const cells = trimmed.slice(bang + 1);
  const isQuoted = sheetPart.length >= 2 && sheetPart.startsWith("'") && sheetPart.endsWith("'");
  const title = isQuoted ? sheetPart.slice(1, -1).replaceAll("''", "'") : sheetPart;
  return rangeOnSheet(title, cells || undefined);
}

/**
 * Where the tab name of a range ends: the `!` after a quoted name's closing quote (a `!` inside the
 * quotes belongs to the name, so `'Q1!'` is a whole tab), else the last `!` (an unquoted name, as a
 * model may type it, can hold one too); -1 when the range names no cells apart from a tab.
 */
function sheetSeparator(range: string): number {
  if (range.startsWith("'")) {
    for (let index = 1; index < range.length; index++) {
      if (range[index] !== "'") continue;
      if (range[index + 1] === "'") {
        index++;
        continue;
      }
      if (index === range.length - 1) return -1;
      if (range[index + 1] === '!') return index + 1;
      break;
    }
  }
  return range.lastIndexOf('!');
}

/** Column letters for a zero-based column index: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Zero-based, end-exclusive grid coordinates of the cell part of an A1 range (what GridRange wants). */
export interface GridBounds {
  startRowIndex?: number;
  endRowIndex?: number;
  startColumnIndex?: number;
  endColumnIndex?: number;
}

function columnIndex(letters: string): number {
  return [...letters.toUpperCase()].reduce((total, letter) => total * 26 + letter.charCodeAt(0) - 64, 0) - 1;
}

/**
 * Parses the cells of an A1 range — `B2`, `A1:C9`, `A:C`, `2:5`, `A2:C` — into grid bounds; an
 * empty string is the whole sheet. Undefined for anything else, so callers can say so clearly.
 */
export function gridBounds(cells: string): GridBounds | undefined {
  if (cells === '') return {};
  const corner = /^([A-Za-z]{0,3})(\d{0,7})$/;
  const [first, second, extra] = cells.split(':');
  if (extra !== undefined || first === undefined) return undefined;
  const start = corner.exec(first);
  const end = corner.exec(second ?? first);
  if (!start || !end || (!start[1] && !start[2]) || (!end[1] && !end[2])) return undefined;
  // Alone, a column (`BIG`) or a row (`12`) is no range: Sheets reads such a name as a tab's.
  if (second === undefined && (!start[1] || !start[2])) return undefined;
  const bounds: GridBounds = {};
  if (start[1]) bounds.startColumnIndex = columnIndex(start[1]);
  if (end[1]) bounds.endColumnIndex = columnIndex(end[1]) + 1;
  if (start[2]) bounds.startRowIndex = Number(start[2]) - 1;
  if (end[2]) bounds.endRowIndex = Number(end[2]);
  if (!start[2] && end[2]) return undefined;
  return bounds;
}

/** Splits `'My tab'!A1:B2` into the unquoted tab title and the cell part. */
export function splitRange(range: string): { sheetTitle: string | undefined; cells: string } {
  const normalized = normalizeRange(range);
  const bang = sheetSeparator(normalized);
  if (bang === -1) {
    // A bare range is cells on the first tab — unless it cannot be cells, then it is a tab name.
    return gridBounds(normalized)
      ? { sheetTitle: undefined, cells: normalized }
      : { sheetTitle: unquote(normalized), cells: '' };
  }
  return { sheetTitle: unquote(normalized.slice(0, bang)), cells: normalized.slice(bang + 1) };
}

function unquote(sheet: string): string {
  return sheet.startsWith("'") && sheet.endsWith("'") ? sheet.slice(1, -1).replaceAll("''", "'") : sheet;
}
