import { randomInt, randomUUID } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { quoteSheetName } from './a1.ts';
import { SHOWN_ERRORS } from './formula-errors.ts';
import type { ImportedTab } from './formula-imports.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * Formulas evaluated by Google over a spreadsheet without leaving anything in it
 * (docs/design.md §11.3, evaluate_formulas): a hidden tab of a unique, unguessable title is added,
 * the formulas written into it and their results read back in the same `spreadsheets.batchUpdate`
 * (`includeSpreadsheetInResponse`, `responseRanges`, `responseIncludeGridData`), and the tab is
 * deleted by a second batchUpdate whatever happened to the first.
 *
 * The batchUpdates go through callGoogle directly, never kit/spreadsheet-batch-update.ts: the
 * scratch tab is no change of the person's, so no journal capture (journal/state/state-capture.ts)
 * ever sees it, even inside a journaled write. It is added hidden after the last tab, so the
 * first visible tab — where a range without a tab name lies — and the person's cells, which
 * revisions vouch for (revision.ts), stay as they were.
 *
 * Each formula has a block of the tab: its top row holds `=ROWS(f)` and `=COLUMNS(f)` (the whole
 * result's size), the rows below `=ARRAY_CONSTRAIN(f, rows, columns)`, a spilled result cut to
 * the block so no spill meets another's or the grid's end.
 *
 * Imports (formula-imports.ts) are hidden tabs titled as the call names them, added and filled
 * in the same batchUpdate before the formulas are written, so they read them as any tab, and
 * deleted with the scratch tab.
 */

/** Formulas in one call; each is evaluated three times (its size and its cells), in one tab. */
export const MAX_EVALUATED_FORMULAS = 10;
/** The columns of a result kept: a new tab's width in Sheets. */
export const RESULT_COLUMNS = 26;
/** Rows kept of one formula's result, and of all of a call's together (the tab stays small). */
export const RESULT_ROWS = 1_000;
const ALL_RESULT_ROWS = 2_000;

export interface Evaluation {
  /** The result's cells from its top-left, as Google answered them; trailing empty cells left out. */
  cells: sheets_v4.Schema$CellData[][];
  /** The whole result's size (the cells may be cut to RESULT_COLUMNS and rowsKept). */
  rows: number;
  columns: number;
  /** The rows of the result the scratch tab kept. */
  rowsKept: number;
  /** The result is one error: what the cell shows and Google's message. */
  error?: { error: string; message: string };
}

/** The rows of each result kept when `count` formulas are evaluated in one call. */
export function rowsKeptOf(count: number): number {
  return Math.min(RESULT_ROWS, Math.floor(ALL_RESULT_ROWS / Math.max(1, count)));
}

/** How long each scratch request may take, whether or not the client is still waiting. */
const SCRATCH_DEADLINE_MS = 60_000;

const CELL_FIELDS = 'effectiveValue,formattedValue,effectiveFormat(numberFormat(type))';

/** A random sheetId: Sheets gives positive 32-bit ones; above a billion meets none it gives. */
const unusedSheetId = () => randomInt(1_000_000_000, 2_147_483_647);

/** The requests adding an import's hidden tab and its values. */
function importRequests(tab: ImportedTab, sheetId: number): sheets_v4.Schema$Request[] {
  const rowCount = Math.max(1, tab.rows.length);
  return [
    {
      addSheet: {
        properties: {
          sheetId,
          title: tab.name,
          hidden: true,
          gridProperties: { rowCount, columnCount: tab.columns },
        },
      },
    },
    ...(tab.rows.length > 0
      ? [
          {
            updateCells: {
              start: { sheetId, rowIndex: 0, columnIndex: 0 },
              fields: 'userEnteredValue',
              rows: tab.rows,
            },
          },
        ]
      : []),
  ];
}

/**
 * Evaluates `formulas` (each starting with `=`, checked by the caller: formula-text.ts) in one
 * scratch tab of `spreadsheetId`, with `imports` as hidden tabs beside it, all removed before this
 * returns or throws.
 */
export async function evaluateOffTabs(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  formulas: readonly string[],
  imports: readonly ImportedTab[] = [],
): Promise<Evaluation[]> {
  const rowsKept = rowsKeptOf(formulas.length);
  const block = rowsKept + 1;
  const sheetId = unusedSheetId();
  const title = `sheetgate-scratch-${randomUUID()}`;
  const importIds = imports.map(unusedSheetId);
  const requests: sheets_v4.Schema$Request[] = [
    {
      addSheet: {
        properties: {
          sheetId,
          title,
          hidden: true,
          gridProperties: { rowCount: block * formulas.length, columnCount: RESULT_COLUMNS },
        },
      },
    },
    // After the scratch tab, so a retry of a batch whose answer was lost fails on its title first.
    ...imports.flatMap((tab, index) => importRequests(tab, importIds[index]!)),
    ...formulas.map((formula, index): sheets_v4.Schema$Request => {
      const body = formula.slice(1);
      const cell = (text: string) => ({ userEnteredValue: { formulaValue: text } });
      return {
        updateCells: {
          start: { sheetId, rowIndex: index * block, columnIndex: 0 },
          fields: 'userEnteredValue',
          rows: [
            { values: [cell(`=ROWS(${body})`), cell(`=COLUMNS(${body})`)] },
            { values: [cell(`=ARRAY_CONSTRAIN(${body}, ${rowsKept}, ${RESULT_COLUMNS})`)] },
          ],
        },
      };
    }),
  ];
  let answer: sheets_v4.Schema$BatchUpdateSpreadsheetResponse | undefined;
  let failure: unknown;
  if (signal.aborted) throw new ToolError('the request was cancelled');
  try {
    // Not the call's signal: a request abandoned on the way could still add the tab after the
    // delete was sent. A cancelled call lets it finish, removes the tab, then says it was cancelled.
    ({ data: answer } = await callGoogle(userId, AbortSignal.timeout(SCRATCH_DEADLINE_MS), (request) =>
      sheets.spreadsheets.batchUpdate(
        {
          spreadsheetId,
          fields: `updatedSpreadsheet(sheets(data(startRow,startColumn,rowData(values(${CELL_FIELDS})))))`,
          requestBody: {
            requests,
            includeSpreadsheetInResponse: true,
            responseRanges: [quoteSheetName(title)],
            responseIncludeGridData: true,
          },
        },
        request,
      ),
    ));
  } catch (error) {
    // A retry after an answer Google lost finds the tab the lost attempt added: no new result came.
    failure =
      error instanceof Error && error.message.includes(title)
        ? new ToolError('Google failed while evaluating the formulas (its answer was lost). Try again.')
        : (importClash(error, imports) ?? error);
  }
  const left = await removeScratch({ sheets, callGoogle }, userId, spreadsheetId, [
    { sheetId, title },
    ...imports.map((tab, index) => ({ sheetId: importIds[index]!, title: tab.name })),
  ]);
  if (failure !== undefined) {
    if (left && failure instanceof Error) throw new ToolError(`${failure.message} ${left}`);
    throw failure;
  }
  if (left) throw new ToolError(`The formulas were evaluated, but ${left}`);
  if (signal.aborted) throw new ToolError('the request was cancelled');
  return resultsOf(answer?.updatedSpreadsheet, formulas.length, block);
}

/** Google's refusal of an import's tab because the spreadsheet has one of that name, said as such. */
function importClash(error: unknown, imports: readonly ImportedTab[]): ToolError | undefined {
  if (!(error instanceof Error)) return undefined;
  const clash = imports.find((tab) =>
    error.message.toLowerCase().includes(`a sheet with the name "${tab.name.toLowerCase()}" already exists`),
  );
  return clash
    ? new ToolError(
        `imports "${clash.name}": the spreadsheet already has a tab of that name; name the import otherwise.`,
      )
    : undefined;
}

/**
 * Deletes the scratch tab and the imports' tabs; a sentence saying what is still there when that failed, else undefined.
 * Its own deadline rather than the call's signal: a call the client cancelled still removes it.
 * A deletion Google refuses because the tab is not there (the add was refused, atomically, with
 * its batch) is checked with one read of the tabs.
 */
async function removeScratch(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  userId: string,
  spreadsheetId: string,
  tabs: ReadonlyArray<{ sheetId: number; title: string }>,
): Promise<string | undefined> {
  const signal = AbortSignal.timeout(SCRATCH_DEADLINE_MS);
  const requests = tabs.map(({ sheetId }) => ({ deleteSheet: { sheetId } }));
  try {
    await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.batchUpdate(
        { spreadsheetId, fields: 'spreadsheetId', requestBody: { requests } },
        request,
      ),
    );
    return undefined;
  } catch {
    let left = tabs;
    try {
      const { data } = await callGoogle(userId, signal, (request) =>
        sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets(properties(sheetId))' }, request),
      );
      const there = new Set((data.sheets ?? []).map((sheet) => sheet.properties?.sheetId));
      left = tabs.filter((tab) => there.has(tab.sheetId));
      if (left.length === 0) return undefined;
    } catch {
      // Not known: said as left behind, so the person can look.
    }
    const named = left.map(({ sheetId, title }) => `"${title}" (sheetId ${sheetId})`).join(', ');
    return `its hidden scratch ${left.length === 1 ? 'tab' : 'tabs'} ${named} could not be removed: delete ${left.length === 1 ? 'it' : 'them'} (delete_sheet).`;
  }
}

function resultsOf(
  spreadsheet: sheets_v4.Schema$Spreadsheet | undefined,
  count: number,
  block: number,
): Evaluation[] {
  const rows: sheets_v4.Schema$CellData[][] = [];
  for (const grid of spreadsheet?.sheets?.[0]?.data ?? []) {
    const top = grid.startRow ?? 0;
    const left = grid.startColumn ?? 0;
    for (const [r, row] of (grid.rowData ?? []).entries()) {
      rows[top + r] ??= [];
      const cells = rows[top + r]!;
      for (const [c, cell] of (row.values ?? []).entries()) cells[left + c] = cell;
    }
  }
  return Array.from({ length: count }, (_, index) => {
    const top = index * block;
    const [rowsCell, columnsCell] = rows[top] ?? [];
    const cells = trimmed(rows.slice(top + 1, top + block).map((row) => trimmed(Array.from(row ?? []))));
    const error = cells.length === 1 && cells[0]!.length === 1 ? errorOf(cells[0]![0]) : undefined;
    const widest = cells.reduce((most, row) => Math.max(most, row.length), 0);
    return {
      cells: cells.map((row) => Array.from(row, (cell) => cell ?? {})),
      rows: Math.max(sizeOf(rowsCell), cells.length),
      columns: Math.max(sizeOf(columnsCell), widest),
      rowsKept: block - 1,
      ...(error ? { error } : {}),
    };
  });
}

/** ROWS or COLUMNS as answered; 0 when it is no number (an error result has no size of its own). */
function sizeOf(cell: sheets_v4.Schema$CellData | undefined): number {
  const value = cell?.effectiveValue?.numberValue;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function errorOf(cell: sheets_v4.Schema$CellData | undefined): Evaluation['error'] {
  const error = cell?.effectiveValue?.errorValue;
  if (!error?.type) return undefined;
  return { error: SHOWN_ERRORS[error.type] ?? error.type, message: error.message ?? '' };
}

/** Without its trailing empty entries (Google leaves out trailing empty cells and rows; a spill's gaps stay). */
function trimmed<T>(list: T[]): T[] {
  const isEmpty = (item: T) =>
    item === undefined ||
    (Array.isArray(item) ? item.length === 0 : (item as sheets_v4.Schema$CellData).effectiveValue == null);
  let end = list.length;
  while (end > 0 && isEmpty(list[end - 1]!)) end--;
  return list.slice(0, end);
}

/** A cell of a result as a model reads it: numbers, text, true/false; a date or time as Sheets shows it; an error as its text. */
export function shownValue(cell: sheets_v4.Schema$CellData): string | number | boolean | null {
  const value = cell.effectiveValue;
  if (!value) return null;
  if (value.errorValue) return SHOWN_ERRORS[value.errorValue.type ?? ''] ?? '#ERROR!';
  if (value.boolValue != null) return value.boolValue;
  if (value.numberValue != null) {
    const type = cell.effectiveFormat?.numberFormat?.type;
    const dated = type === 'DATE' || type === 'TIME' || type === 'DATE_TIME';
    return dated && cell.formattedValue ? cell.formattedValue : value.numberValue;
  }
  return value.stringValue ?? null;
}
