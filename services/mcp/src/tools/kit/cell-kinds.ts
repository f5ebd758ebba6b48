import type { AuthInfo } from '../../auth/auth-info.ts';
import { columnLetters, rangeOnSheet } from './a1.ts';
import { readCells } from './cells-read.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * What a cell holds where a FORMULA-rendered values read cannot tell: `=1+1` is a formula, or text
 * that starts with `=` (written RAW, or typed behind an apostrophe); `#N/A` is an error value, or
 * text. Only spreadsheets.get's `userEnteredValue` says which (Sheets API CellData:
 * `userEnteredValue` is an ExtendedValue with exactly one of numberValue, stringValue, boolValue,
 * formulaValue, errorValue).
 */
export type StringKind = 'formula' | 'text' | 'error';

/** A string a FORMULA read gives for more than one kind of cell. */
export function isAmbiguous(value: unknown): value is string {
  return typeof value === 'string' && value.length > 1 && (value.startsWith('=') || value.startsWith('#'));
}

/** One cell of a tab: its title and zero-based row and column. */
export interface CellAt {
  sheet: string;
  row: number;
  column: number;
}

const keyOf = (cell: CellAt) => `${cell.sheet}\n${cell.row}\n${cell.column}`;

export interface CellKinds {
  /** The kind of an ambiguous cell asked for; undefined for a cell not asked. */
  of(cell: CellAt): StringKind | undefined;
}

/**
 * The kinds of `cells` (each holding an ambiguous string), in one spreadsheets.get of the bounding
 * box of the cells asked on each tab; no request when none is asked.
 */
export async function readCellKinds(
  deps: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  spreadsheetId: string,
  cells: readonly CellAt[],
): Promise<CellKinds> {
  const kinds = new Map<string, StringKind>();
  if (cells.length > 0) {
    const boxes = new Map<string, { top: number; bottom: number; left: number; right: number }>();
    for (const cell of cells) {
      const box = boxes.get(cell.sheet);
      if (!box)
        boxes.set(cell.sheet, { top: cell.row, bottom: cell.row, left: cell.column, right: cell.column });
      else {
        box.top = Math.min(box.top, cell.row);
        box.bottom = Math.max(box.bottom, cell.row);
        box.left = Math.min(box.left, cell.column);
        box.right = Math.max(box.right, cell.column);
      }
    }
    const ranges = [...boxes].map(([sheet, box]) =>
      rangeOnSheet(
        sheet,
        `${columnLetters(box.left)}${box.top + 1}:${columnLetters(box.right)}${box.bottom + 1}`,
      ),
    );
    await readCells(
      deps,
      auth,
      signal,
      spreadsheetId,
      { ranges, cellFields: 'userEnteredValue' },
      (cell, at) => {
        const value = cell.userEnteredValue;
        const kind: StringKind | undefined = !value
          ? undefined
          : value.formulaValue != null
            ? 'formula'
            : value.errorValue != null
              ? 'error'
              : value.stringValue != null
                ? 'text'
                : undefined;
        if (kind) kinds.set(keyOf(at), kind);
      },
    );
  }
  return { of: (cell) => kinds.get(keyOf(cell)) };
}
