import type { sheets_v4 } from 'googleapis';
import type { AuthInfo } from '../auth/auth-info.ts';
import { areaRows, type TabArea } from '../tools/kit/table-area.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';

/** The notes of one rectangle of a tab, before and after a change ('' is no note). */
export interface NoteArea {
  sheet: string;
  sheetId: number;
  rowStart: number;
  columnStart: number;
  before: string[][];
  after: string[][];
}

/** The A1 range a note area covers. */
export function noteAreaRange(area: NoteArea): string {
  const height = Math.max(1, area.before.length);
  const width = Math.max(1, ...area.before.map((row) => row.length));
  return areaRows(
    {
      title: area.sheet,
      sheetId: area.sheetId,
      rowStart: area.rowStart,
      rowEnd: area.rowStart + height,
      columnStart: area.columnStart,
      columnEnd: area.columnStart + width,
    },
    area.rowStart,
    area.rowStart + height,
  );
}

/**
 * The notes each area holds now, as full rectangles ('' where a cell has none): one
 * spreadsheets.get of the areas' ranges with `note` alone.
 */
export async function readNotes(
  { sheets, callGoogle }: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  spreadsheetId: string,
  areas: readonly TabArea[],
): Promise<string[][][]> {
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      {
        spreadsheetId,
        ranges: areas.map((area) => areaRows(area, area.rowStart, area.rowEnd)),
        includeGridData: true,
        fields: 'sheets(properties(title),data(startRow,startColumn,rowData(values(note))))',
      },
      request,
    ),
  );
  // Grid data comes back per tab, each range's in the order asked.
  const perTab = new Map<string, sheets_v4.Schema$GridData[]>(
    (data.sheets ?? []).map((sheet) => [sheet.properties?.title ?? '', [...(sheet.data ?? [])]]),
  );
  return areas.map((area) => {
    const grid = perTab.get(area.title)?.shift();
    return Array.from({ length: area.rowEnd - area.rowStart }, (_, r) =>
      Array.from(
        { length: area.columnEnd - area.columnStart },
        (_, c) => grid?.rowData?.[r]?.values?.[c]?.note ?? '',
      ),
    );
  });
}

/** updateCells restoring `notes` over the area (every cell set: a note, or none). */
export function restoreNotesRequest(area: NoteArea, notes: string[][]): sheets_v4.Schema$Request {
  const height = notes.length;
  const width = Math.max(0, ...notes.map((row) => row.length));
  return {
    updateCells: {
      range: {
        sheetId: area.sheetId,
        startRowIndex: area.rowStart,
        endRowIndex: area.rowStart + height,
        startColumnIndex: area.columnStart,
        endColumnIndex: area.columnStart + width,
      },
      rows: notes.map((row) => ({ values: row.map((note) => (note ? { note } : {})) })),
      fields: 'note',
    },
  };
}
