import type { sheets_v4 } from 'googleapis';
import { type RowsWindow, WINDOW_ROWS, windowRows } from './page-window.ts';
import { rangeOnTabs } from './range-on-tabs.ts';
import type { ValueRender } from './revision.ts';
import { readTabGrids, readTabGridsWithData, type TabGrid } from './table-area.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * Whether data lies below a window whose own data ended inside it. Google leaves out a read's
 * trailing empty rows (ValueRange.values), so a short answer says only that the window's last
 * rows are blank. The first look asks for the tabs' sizes and the rows under the window in one
 * spreadsheets.get (`ranges` and a field mask of the cells' values): when the window reached the
 * grid's last row, or nothing lies below it to the grid's end, that one request settles it. Else
 * the rows below are read, a bounded number of cells at a time, until a row holds data, the range
 * or the grid ends, or LOOK_ROUNDS reads were made — the answer then says how far it looked.
 */

/** Cells the looks of one round may fetch between them (each look at least WINDOW_ROWS rows). */
export const LOOK_CELLS = 100_000;
export const LOOK_ROUNDS = 4;

export interface LookBelow {
  window: RowsWindow;
  /** The zero-based sheet row to look from; the row above it was read, blank, inside the grid. */
  from: number;
  /** The columns the window spans, to size a look. */
  width: number;
}

export type Below =
  /** The first row below holding data (zero-based sheet row). */
  | { kind: 'data'; row: number }
  /** Nothing below, to the range's end or the tab's. */
  | { kind: 'end' }
  /** Blank as far as it looked: rows up to `through` (end-exclusive). */
  | { kind: 'looked'; through: number };

type ReadCall = { userId: string; signal: AbortSignal; spreadsheetId: string; render: ValueRender };

export async function lookBelow(
  deps: ToolDeps,
  call: ReadCall,
  looks: readonly LookBelow[],
): Promise<Below[]> {
  const results: Array<Below | undefined> = looks.map(() => undefined);
  const next = looks.map((look) => look.from);
  const bottomOf = (tabs: readonly TabGrid[], look: LookBelow) =>
    Math.min(
      look.window.rangeEnd ?? Number.POSITIVE_INFINITY,
      rangeOnTabs(tabs, look.window.range).tab?.rows ?? Number.POSITIVE_INFINITY,
    );
  let bottoms: number[];
  // The first look, with the tabs' sizes. It starts on the window's last row (blank, and inside
  // the grid: Google refuses a range that starts below it) and may reach past the grid's end.
  const firstLooks = looks.map((look) => {
    const rows = Math.max(
      1,
      Math.min(WINDOW_ROWS, Math.floor(LOOK_CELLS / (Math.max(1, look.width) * looks.length))),
    );
    const first = look.from - 1;
    return { first, end: Math.min(look.from + rows, look.window.rangeEnd ?? Number.POSITIVE_INFINITY) };
  });
  const answered = await readTabGridsWithData(
    deps,
    call.userId,
    call.signal,
    call.spreadsheetId,
    looks.map((look, index) => windowRows(look.window, firstLooks[index]!.first, firstLooks[index]!.end)),
    'formattedValue,userEnteredValue',
  );
  if (answered) {
    bottoms = looks.map((look) => bottomOf(answered.tabs, look));
    looks.forEach((look, index) => {
      const { first, end } = firstLooks[index]!;
      const title = rangeOnTabs(answered.tabs, look.window.range).tab?.title ?? '';
      const grid = answered.data.get(title)?.shift();
      const filled = (grid?.rowData ?? []).findIndex((row) =>
        (row.values ?? []).some((cell) => cellHolds(cell, call.render)),
      );
      if (filled >= 0) results[index] = { kind: 'data', row: first + filled };
      else next[index] = Math.min(end, bottoms[index]!);
    });
  } else {
    // A window reaching past the grid's end (Google answers it with what is there): the sizes alone.
    const tabs = await readTabGrids(deps, call.userId, call.signal, call.spreadsheetId);
    bottoms = looks.map((look) => bottomOf(tabs, look));
  }
  for (let round = answered ? 1 : 0; round < LOOK_ROUNDS; round++) {
    const asking = looks
      .map((_, index) => index)
      .filter((index) => results[index] === undefined && next[index]! < bottoms[index]!);
    if (asking.length === 0) break;
    const chunks = asking.map((index) => {
      const rows = Math.max(
        WINDOW_ROWS,
        Math.floor(LOOK_CELLS / (Math.max(1, looks[index]!.width) * asking.length)),
      );
      const first = next[index]!;
      return { index, first, end: Math.min(first + rows, bottoms[index]!) };
    });
    const answers = await batchGet(
      deps,
      call,
      chunks.map((chunk) => windowRows(looks[chunk.index]!.window, chunk.first, chunk.end)),
    );
    chunks.forEach((chunk, position) => {
      const values = (answers[position]?.values ?? []) as unknown[][];
      const filled = values.findIndex((row) => !isBlankRow(row));
      if (filled >= 0) results[chunk.index] = { kind: 'data', row: chunk.first + filled };
      else next[chunk.index] = chunk.end;
    });
  }
  return results.map(
    (result, index): Below =>
      result ??
      (next[index]! >= bottoms[index]! ? { kind: 'end' } : { kind: 'looked', through: next[index]! }),
  );
}

/**
 * Whether a cell shows in a values read with `render`: its formatted value (what FORMATTED_VALUE
 * and UNFORMATTED_VALUE give) is not empty, or, read as formulas, it holds one.
 */
function cellHolds(cell: sheets_v4.Schema$CellData, render: ValueRender): boolean {
  if (cell.formattedValue) return true;
  return render === 'FORMULA' && Boolean(cell.userEnteredValue?.formulaValue);
}

async function batchGet({ sheets, callGoogle }: ToolDeps, call: ReadCall, ranges: string[]) {
  const { data } = await callGoogle(call.userId, call.signal, (request) =>
    sheets.spreadsheets.values.batchGet(
      { spreadsheetId: call.spreadsheetId, ranges, valueRenderOption: call.render },
      request,
    ),
  );
  return data.valueRanges ?? [];
}

/** A row Google returns between rows with data: no cells, or only empty ones. */
export function isBlankRow(row: readonly unknown[] | undefined): boolean {
  return (row ?? []).every((cell) => cell === '' || cell === null || cell === undefined);
}
