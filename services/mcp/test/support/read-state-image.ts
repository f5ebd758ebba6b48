import type { sheets_v4 } from 'googleapis';
import { normalized } from '../../src/journal/state/state-compare.ts';
import type { CellField, StateImage } from '../../src/journal/state/state-image.ts';
import { columnLetters, gridBounds, rangeOnSheet } from '../../src/tools/kit/a1.ts';

/**
 * State images read as a test would read a spreadsheet, with plain spreadsheets.get calls: every
 * tab's aspects and the named ranges, the cells and the row or column sizes a plan names. Each
 * aspect is given even when empty, as an image of a footprint that reads it is.
 */
export interface ImagePlan {
  /** Only these tabs' aspects, and no list of tabs (as a footprint that adds no tab reads them). */
  onlyTabs?: number[];
  cells?: Array<{ sheet: string; sheetId: number; range: string; fields: CellField[] }>;
  dimensions?: Array<{
    sheet: string;
    sheetId: number;
    dimension: 'ROWS' | 'COLUMNS';
    start: number;
    end: number;
  }>;
}

const ASPECTS =
  'sheets(properties,merges,conditionalFormats,basicFilter,filterViews,protectedRanges,charts,bandedRanges,tables),namedRanges';

export async function readStateImage(
  sheets: sheets_v4.Sheets,
  spreadsheetId: string,
  plan: ImagePlan,
): Promise<StateImage> {
  const { data } = await sheets.spreadsheets.get({ spreadsheetId, fields: ASPECTS });
  const tabs = (data.sheets ?? []).map((sheet) => ({
    sheetId: sheet.properties?.sheetId ?? 0,
    title: sheet.properties?.title ?? '',
  }));
  const present = new Set(tabs.map((tab) => tab.sheetId));
  const image: StateImage = {
    tabs,
    namedRanges: data.namedRanges ?? [],
    sheets: (data.sheets ?? []).map((sheet) => ({
      sheetId: sheet.properties?.sheetId ?? 0,
      title: sheet.properties?.title ?? '',
      properties: sheet.properties ?? {},
      merges: sheet.merges ?? [],
      conditionalFormats: sheet.conditionalFormats ?? [],
      basicFilter: sheet.basicFilter ?? null,
      filterViews: sheet.filterViews ?? [],
      protectedRanges: sheet.protectedRanges ?? [],
      charts: sheet.charts ?? [],
      bandedRanges: sheet.bandedRanges ?? [],
      tables: sheet.tables ?? [],
    })),
    cells: [],
    dimensions: [],
  };
  for (const area of plan.cells ?? []) {
    if (!present.has(area.sheetId)) continue;
    const { data: grid } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: [rangeOnSheet(area.sheet, area.range)],
      includeGridData: true,
      fields: `sheets.data.rowData.values(${area.fields.join(',')})`,
    });
    const bounds = gridBounds(area.range) ?? {};
    image.cells.push({
      sheetId: area.sheetId,
      sheet: area.sheet,
      top: bounds.startRowIndex ?? 0,
      left: bounds.startColumnIndex ?? 0,
      fields: area.fields,
      rows: (grid.sheets?.[0]?.data?.[0]?.rowData ?? []).map((row) => row.values ?? []),
    });
  }
  for (const span of plan.dimensions ?? []) {
    if (!present.has(span.sheetId)) continue;
    const rows = span.dimension === 'ROWS';
    const cells = rows
      ? `${span.start + 1}:${span.end}`
      : `${columnLetters(span.start)}:${columnLetters(span.end - 1)}`;
    const { data: grid } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: [rangeOnSheet(span.sheet, cells)],
      includeGridData: true,
      fields: 'sheets.data(rowMetadata(pixelSize,hiddenByUser),columnMetadata(pixelSize,hiddenByUser))',
    });
    const data = grid.sheets?.[0]?.data?.[0];
    const metadata = (rows ? data?.rowMetadata : data?.columnMetadata) ?? [];
    image.dimensions.push({
      sheetId: span.sheetId,
      dimension: span.dimension,
      start: span.start,
      sizes: metadata.map((each) => ({
        pixelSize: each.pixelSize ?? null,
        hiddenByUser: each.hiddenByUser ?? false,
      })),
    });
  }
  if (plan.onlyTabs) {
    delete image.tabs;
    image.sheets = image.sheets.filter((sheet) => plan.onlyTabs?.includes(sheet.sheetId));
  }
  return image;
}

const byId = <T>(list: T[] | undefined, id: (each: T) => unknown) =>
  [...(list ?? [])].sort((a, b) => String(id(a)).localeCompare(String(id(b))));

/** Rows without the empty cells and rows Google may or may not give at their ends. */
function trimmed(rows: sheets_v4.Schema$CellData[][]): unknown[][] {
  const cells = rows.map((row) => row.map((cell) => normalized(cell) ?? null));
  for (const row of cells) while (row.length > 0 && row.at(-1) === null) row.pop();
  while (cells.length > 0 && cells.at(-1)?.length === 0) cells.pop();
  return cells;
}

/** An image in a form two reads of the same spreadsheet compare equal in: lists by id, empty parts gone. */
export function canonicalImage(image: StateImage): unknown {
  return normalized({
    tabs: image.tabs,
    namedRanges: byId(image.namedRanges, (each) => each.namedRangeId),
    cells: image.cells.map((area) => ('rows' in area ? { ...area, rows: trimmed(area.rows) } : area)),
    dimensions: image.dimensions,
    sheets: byId(image.sheets, (each) => each.sheetId).map((sheet) => ({
      ...sheet,
      merges: byId(sheet.merges, (each) => JSON.stringify(each)),
      filterViews: byId(sheet.filterViews, (each) => each.filterViewId),
      protectedRanges: byId(sheet.protectedRanges, (each) => each.protectedRangeId),
      charts: byId(sheet.charts, (each) => each.chartId),
      bandedRanges: byId(sheet.bandedRanges, (each) => each.bandedRangeId),
      tables: byId(sheet.tables, (each) => each.tableId),
    })),
  });
}
