import type { sheets_v4 } from 'googleapis';
import { areaCellCount } from './state-cells.ts';
import type {
  CellAreaImage,
  CellField,
  DimensionImage,
  SheetAspect,
  SheetStateImage,
  StateImage,
} from './state-image.ts';
import type { StatePlan } from './state-read.ts';

/**
 * The image of a footprint in a spreadsheet resource read with its plan: `wholeTabs` when each
 * tab's grid data is the whole tab (no ranges were given), else a tab's k-th GridData is its k-th
 * planned range.
 */
export function imageOf(
  plan: StatePlan,
  spreadsheet: sheets_v4.Schema$Spreadsheet,
  wholeTabs: boolean,
): StateImage {
  const { footprint } = plan;
  const sheets = new Map((spreadsheet.sheets ?? []).map((sheet) => [sheet.properties?.sheetId ?? 0, sheet]));
  const gridOf = (index: number) => {
    const range = plan.ranges[index]!;
    const sheet = sheets.get(range.sheetId ?? 0);
    if (!sheet) return undefined;
    const nth = wholeTabs
      ? 0
      : plan.ranges.slice(0, index).filter((each) => each.sheetId === range.sheetId).length;
    const data = sheet.data?.[nth];
    return data ? { sheet, data } : undefined;
  };
  const cells: CellAreaImage[] = [];
  for (const [index, area] of footprint.cells.entries()) {
    const found = gridOf(index);
    if (found) cells.push(cellArea(found.sheet, found.data, area, area.fields));
  }
  if (footprint.allTabsCells)
    for (const sheet of sheets.values()) {
      const data = sheet.data?.[0];
      if (data)
        cells.push(
          cellArea(
            sheet,
            data,
            { sheetId: sheet.properties?.sheetId ?? 0, startRow: 0, startColumn: 0 },
            footprint.allTabsCells,
          ),
        );
    }
  const dimensions: DimensionImage[] = [];
  for (const [index, span] of footprint.dimensions.entries()) {
    const found = gridOf(footprint.cells.length + index);
    if (!found) continue;
    const metadata = span.dimension === 'ROWS' ? found.data.rowMetadata : found.data.columnMetadata;
    const first = span.dimension === 'ROWS' ? (found.data.startRow ?? 0) : (found.data.startColumn ?? 0);
    dimensions.push({
      sheetId: span.sheetId,
      dimension: span.dimension,
      start: span.start,
      sizes: (metadata ?? []).slice(span.start - first, span.end - first).map((each) => ({
        pixelSize: each.pixelSize ?? null,
        hiddenByUser: each.hiddenByUser === true,
      })),
    });
  }
  const tabImages = new Map<number, SheetStateImage>();
  for (const { sheetId, aspects } of footprint.sheets) {
    const read =
      sheetId === 'any' ? [...sheets.values()] : [sheets.get(sheetId)].filter((each) => each !== undefined);
    for (const sheet of read) {
      const id = sheet.properties?.sheetId ?? 0;
      const image = tabImages.get(id) ?? { sheetId: id, title: sheet.properties?.title ?? '' };
      for (const aspect of aspects) Object.assign(image, { [aspect]: aspectOf(sheet, aspect) });
      tabImages.set(id, image);
    }
  }
  return {
    cells,
    dimensions,
    sheets: [...tabImages.values()],
    ...(footprint.namedRanges ? { namedRanges: spreadsheet.namedRanges ?? [] } : {}),
    ...(footprint.addsTabs
      ? {
          tabs: [...sheets.values()].map((sheet) => ({
            sheetId: sheet.properties?.sheetId ?? 0,
            title: sheet.properties?.title ?? '',
          })),
        }
      : {}),
  };
}

/** An aspect as Google gives it, with the empty lists (and no filter) Google leaves out. */
function aspectOf(sheet: sheets_v4.Schema$Sheet, aspect: SheetAspect): unknown {
  if (aspect === 'properties') return sheet.properties ?? {};
  if (aspect === 'basicFilter') return sheet.basicFilter ?? null;
  return sheet[aspect] ?? [];
}

/** An area's cells cut from a GridData that holds them, masked to `fields`, trailing empties left out. */
function cellArea(
  sheet: sheets_v4.Schema$Sheet,
  data: sheets_v4.Schema$GridData,
  area: {
    sheetId: number;
    startRow: number;
    endRow?: number | undefined;
    startColumn: number;
    endColumn?: number | undefined;
  },
  fields: CellField[],
): CellAreaImage {
  const top = data.startRow ?? 0;
  const left = data.startColumn ?? 0;
  const rowData = data.rowData ?? [];
  const lastRow = Math.min(rowData.length, (area.endRow ?? Number.POSITIVE_INFINITY) - top);
  const rows: sheets_v4.Schema$CellData[][] = [];
  for (let r = area.startRow - top; r < lastRow; r++) {
    const values = rowData[r]?.values ?? [];
    const lastColumn = Math.min(values.length, (area.endColumn ?? Number.POSITIVE_INFINITY) - left);
    const row: sheets_v4.Schema$CellData[] = [];
    for (let c = area.startColumn - left; c < lastColumn; c++) row.push(masked(values[c], fields));
    while (row.length > 0 && Object.keys(row.at(-1)!).length === 0) row.pop();
    rows.push(row);
  }
  while (rows.length > 0 && rows.at(-1)!.length === 0) rows.pop();
  return {
    sheetId: area.sheetId,
    sheet: sheet.properties?.title ?? '',
    top: area.startRow,
    left: area.startColumn,
    rows,
    fields,
  };
}

function masked(
  cell: sheets_v4.Schema$CellData | undefined,
  fields: readonly CellField[],
): sheets_v4.Schema$CellData {
  const kept: sheets_v4.Schema$CellData = {};
  for (const field of fields) if (cell?.[field] != null) Object.assign(kept, { [field]: cell[field] });
  return kept;
}

/** Cells an image keeps (each cell of its areas' rows, or of their runs). */
export function imageCells(image: StateImage): number {
  return image.cells.reduce((sum, area) => sum + areaCellCount(area), 0);
}
