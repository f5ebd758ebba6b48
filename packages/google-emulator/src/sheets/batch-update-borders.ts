/**
 * spreadsheets.batchUpdate `updateBorders`
 * (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request#updatebordersrequest):
 * "If a field is not set in the request, that means the border remains as-is … If you want to
 * clear a border, explicitly set the style to NONE." Each side is kept on the cells it edges, in
 * their `userEnteredFormat.borders`: `top` on the range's first row, `left` on its first column,
 * and so on; an inner border on both cells it lies between.
 */
import type { sheets_v4 } from 'googleapis';
import { onGrid } from './batch-update-rules.ts';
import { cellAt, positionsIn, setCell } from './grid.ts';
import type { SpreadsheetModel } from './model.ts';

type Border = sheets_v4.Schema$Border;
type Side = 'top' | 'bottom' | 'left' | 'right';

export function updateBorders(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateBordersRequest,
): sheets_v4.Schema$Response {
  const { sheet, bounds } = onGrid(spreadsheet, request.range);
  for (const [row, column] of positionsIn(bounds)) {
    const sides: Array<[Side, Border | null | undefined]> = [
      ['top', row === bounds.startRow ? request.top : request.innerHorizontal],
      ['bottom', row === bounds.endRow - 1 ? request.bottom : request.innerHorizontal],
      ['left', column === bounds.startColumn ? request.left : request.innerVertical],
      ['right', column === bounds.endColumn - 1 ? request.right : request.innerVertical],
    ];
    if (sides.every(([, border]) => !border)) continue;
    const cell = structuredClone(cellAt(sheet, row, column) ?? {});
    const format = cell.userEnteredFormat ?? {};
    const borders: sheets_v4.Schema$Borders = format.borders ?? {};
    for (const [side, border] of sides) {
      if (!border) continue;
      if (border.style === 'NONE') delete borders[side];
      else borders[side] = storedBorder(border);
    }
    if (Object.keys(borders).length > 0) format.borders = borders;
    else delete format.borders;
    if (Object.keys(format).length > 0) cell.userEnteredFormat = format;
    else delete cell.userEnteredFormat;
    setCell(sheet, row, column, cell);
  }
  return {};
}

/** A border as Google reads it back: its colour both as `color` and as `colorStyle`. */
function storedBorder(border: Border): Border {
  const stored: Border = { style: border.style ?? 'SOLID' };
  if (border.width != null) stored.width = border.width;
  const rgb = border.colorStyle?.rgbColor ?? border.color;
  if (rgb) stored.color = structuredClone(rgb);
  if (border.colorStyle) stored.colorStyle = structuredClone(border.colorStyle);
  else if (rgb) stored.colorStyle = { rgbColor: structuredClone(rgb) };
  return stored;
}
