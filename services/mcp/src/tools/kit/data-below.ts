import { type RowsWindow, WINDOW_ROWS, windowRows } from './page-window.ts';
import { rangeOnTabs } from './range-on-tabs.ts';
import type { ValueRender } from './revision.ts';
import { readTabGrids } from './table-area.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * Whether data lies below a window whose own data ended inside it. Google leaves out a read's
 * trailing empty rows (ValueRange.values), so a short answer says only that the window's last
 * rows are blank. The tab's size is read first (one spreadsheets.get): when the window reached the
 * grid's last row, that is the end. Else the rows under the window are read, a bounded number of
 * cells at a time, until a row holds data, the range or the grid ends, or LOOK_ROUNDS reads were
 * made — the answer then says how far it looked.
 */

/** Cells the looks of one round may fetch between them (each look at least WINDOW_ROWS rows). */
export const LOOK_CELLS = 100_000;
export const LOOK_ROUNDS = 4;

export interface LookBelow {
  window: RowsWindow;
  /** The zero-based sheet row to look from. */
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

export async function lookBelow(
  deps: ToolDeps,
  call: { userId: string; signal: AbortSignal; spreadsheetId: string; render: ValueRender },
  looks: readonly LookBelow[],
): Promise<Below[]> {
  const results: Array<Below | undefined> = looks.map(() => undefined);
  const next = looks.map((look) => look.from);
  const tabs = await readTabGrids(deps, call.userId, call.signal, call.spreadsheetId);
  const bottoms = looks.map((look) =>
    Math.min(
      look.window.rangeEnd ?? Number.POSITIVE_INFINITY,
      rangeOnTabs(tabs, look.window.range).tab?.rows ?? Number.POSITIVE_INFINITY,
    ),
  );
  for (let round = 0; round < LOOK_ROUNDS; round++) {
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

async function batchGet(
  { sheets, callGoogle }: ToolDeps,
  call: { userId: string; signal: AbortSignal; spreadsheetId: string; render: ValueRender },
  ranges: string[],
) {
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
