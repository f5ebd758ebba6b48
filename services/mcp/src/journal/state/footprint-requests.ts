import type { sheets_v4 } from 'googleapis';
import { cellFields, type FootprintBuilder, type Grid, topLevelFields } from './footprint-builder.ts';
import { ALL_CELL_FIELDS, type CellField, type SheetAspect } from './state-image.ts';

/** A GridRange's size, or undefined along a side that runs to the grid's edge. */
function sizeOf(range: Grid): { rows?: number; columns?: number } {
  const rows = range?.endRowIndex != null ? range.endRowIndex - (range.startRowIndex ?? 0) : undefined;
  const columns =
    range?.endColumnIndex != null ? range.endColumnIndex - (range.startColumnIndex ?? 0) : undefined;
  return { ...(rows === undefined ? {} : { rows }), ...(columns === undefined ? {} : { columns }) };
}

/**
 * The range a paste of `size` writes from a corner; over a destination range (`over`) it repeats
 * the source to fill it, so at least that range.
 */
function pastedArea(
  sheetId: number,
  row: number,
  column: number,
  size: { rows?: number; columns?: number },
  over?: sheets_v4.Schema$GridRange,
): sheets_v4.Schema$GridRange {
  const end = (start: number, length: number | undefined, overEnd: number | null | undefined) => {
    if (length === undefined) return undefined;
    if (!over) return start + length;
    return overEnd == null ? undefined : Math.max(start + length, overEnd);
  };
  return {
    sheetId,
    startRowIndex: row,
    startColumnIndex: column,
    ...optional('endRowIndex', end(row, size.rows, over?.endRowIndex)),
    ...optional('endColumnIndex', end(column, size.columns, over?.endColumnIndex)),
  };
}

const optional = <K extends string>(key: K, value: number | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, number>>;

/** What a paste of each type writes: cell fields, and whether rules and merges come along. */
function pasteParts(pasteType: string | null | undefined): {
  fields: CellField[];
  conditionalFormats: boolean;
  merges: boolean;
} {
  switch (pasteType) {
    case 'PASTE_VALUES':
    case 'PASTE_FORMULA':
      return { fields: ['userEnteredValue', 'textFormatRuns'], conditionalFormats: false, merges: false };
    case 'PASTE_FORMAT':
      return { fields: ['userEnteredFormat', 'dataValidation'], conditionalFormats: true, merges: true };
    case 'PASTE_DATA_VALIDATION':
      return { fields: ['dataValidation'], conditionalFormats: false, merges: false };
    case 'PASTE_CONDITIONAL_FORMATTING':
      return { fields: [], conditionalFormats: true, merges: false };
    default:
      return { fields: [...ALL_CELL_FIELDS], conditionalFormats: true, merges: true };
  }
}

/** What one request adds to a footprint; a reason when undo cannot take it back. */
export type Mapper<T> = (request: T, print: FootprintBuilder) => string | undefined;

/** Each request kind a tool sends (and batch_update allows) as the parts it may change. */
export const REQUEST_FOOTPRINTS: Record<string, Mapper<never>> = {
  updateCells: ((request: sheets_v4.Schema$UpdateCellsRequest, print) => {
    const fields = cellFields(request.fields);
    if (typeof fields === 'string') return fields;
    if (request.range) print.area(request.range, fields);
    else if (request.start) {
      const rows = request.rows ?? [];
      const width = Math.max(0, ...rows.map((row) => row.values?.length ?? 0));
      if (rows.length > 0 && width > 0)
        print.area(
          pastedArea(
            request.start.sheetId ?? 0,
            request.start.rowIndex ?? 0,
            request.start.columnIndex ?? 0,
            { rows: rows.length, columns: width },
          ),
          fields,
        );
    }
    return undefined;
  }) as Mapper<never>,

  repeatCell: ((request: sheets_v4.Schema$RepeatCellRequest, print) => {
    const fields = cellFields(request.fields);
    if (typeof fields === 'string') return fields;
    print.area(request.range, fields);
    return undefined;
  }) as Mapper<never>,

  // A border between two cells may be kept on either: the cells around the range are kept too.
  updateBorders: ((request: sheets_v4.Schema$UpdateBordersRequest, print) => {
    const range = request.range ?? {};
    print.area(
      {
        sheetId: range.sheetId ?? 0,
        startRowIndex: Math.max(0, (range.startRowIndex ?? 0) - 1),
        startColumnIndex: Math.max(0, (range.startColumnIndex ?? 0) - 1),
        ...optional('endRowIndex', range.endRowIndex == null ? undefined : range.endRowIndex + 1),
        ...optional('endColumnIndex', range.endColumnIndex == null ? undefined : range.endColumnIndex + 1),
      },
      ['userEnteredFormat'],
    );
    return undefined;
  }) as Mapper<never>,

  mergeCells: ((request: sheets_v4.Schema$MergeCellsRequest, print) => {
    print.area(request.range, ALL_CELL_FIELDS);
    print.aspect(request.range?.sheetId, 'merges');
    return undefined;
  }) as Mapper<never>,

  unmergeCells: ((request: sheets_v4.Schema$UnmergeCellsRequest, print) => {
    print.area(request.range, ALL_CELL_FIELDS);
    print.aspect(request.range?.sheetId, 'merges');
    return undefined;
  }) as Mapper<never>,

  sortRange: ((request: sheets_v4.Schema$SortRangeRequest, print) => {
    print.area(request.range, ALL_CELL_FIELDS);
    return undefined;
  }) as Mapper<never>,

  findReplace: ((request: sheets_v4.Schema$FindReplaceRequest, print) => {
    const fields: CellField[] = ['userEnteredValue', 'textFormatRuns'];
    if (request.range) print.area(request.range, fields);
    else if (request.sheetId != null) print.area({ sheetId: request.sheetId }, fields);
    else if (request.allSheets) print.allTabsCells = new Set([...(print.allTabsCells ?? []), ...fields]);
    else return 'names no range, sheetId or allSheets';
    return undefined;
  }) as Mapper<never>,

  // Rows kept move up within the range with everything in them, the rows freed are emptied.
  deleteDuplicates: ((request: sheets_v4.Schema$DeleteDuplicatesRequest, print) => {
    if (!request.range) return 'names no range';
    print.area(request.range, ALL_CELL_FIELDS);
    return undefined;
  }) as Mapper<never>,

  trimWhitespace: ((request: sheets_v4.Schema$TrimWhitespaceRequest, print) => {
    if (!request.range) return 'names no range';
    print.area(request.range, ['userEnteredValue', 'textFormatRuns']);
    return undefined;
  }) as Mapper<never>,

  copyPaste: ((request: sheets_v4.Schema$CopyPasteRequest, print) => {
    const source = sizeOf(request.source);
    const size =
      request.pasteOrientation === 'TRANSPOSE'
        ? {
            ...optional('rows', source.columns),
            ...optional('columns', source.rows),
          }
        : source;
    const destination = request.destination ?? {};
    const parts = pasteParts(request.pasteType);
    const sheetId = destination.sheetId ?? 0;
    print.area(
      pastedArea(
        sheetId,
        destination.startRowIndex ?? 0,
        destination.startColumnIndex ?? 0,
        size,
        destination,
      ),
      parts.fields,
    );
    if (parts.conditionalFormats) print.aspect(sheetId, 'conditionalFormats');
    if (parts.merges) print.aspect(sheetId, 'merges');
    return undefined;
  }) as Mapper<never>,

  // "All the source data will be cut, regardless of what is pasted."
  cutPaste: ((request: sheets_v4.Schema$CutPasteRequest, print) => {
    const source = request.source ?? {};
    const destination = request.destination ?? {};
    const parts = pasteParts(request.pasteType);
    print.area(source, ALL_CELL_FIELDS);
    print.area(
      pastedArea(
        destination.sheetId ?? 0,
        destination.rowIndex ?? 0,
        destination.columnIndex ?? 0,
        sizeOf(source),
      ),
      ALL_CELL_FIELDS,
    );
    for (const sheetId of [source.sheetId, destination.sheetId]) {
      print.aspect(sheetId, 'merges');
      if (parts.conditionalFormats) print.aspect(sheetId, 'conditionalFormats');
    }
    return undefined;
  }) as Mapper<never>,

  autoFill: ((request: sheets_v4.Schema$AutoFillRequest, print) => {
    if (request.range) {
      print.area(request.range, ALL_CELL_FIELDS);
      return undefined;
    }
    const { source, dimension, fillLength } = request.sourceAndDestination ?? {};
    if (!source || fillLength == null) return 'names no range or sourceAndDestination';
    const along = dimension === 'COLUMNS' ? 'Column' : 'Row';
    const start = source[`start${along}Index`] ?? 0;
    const end = source[`end${along}Index`];
    print.area(
      {
        ...source,
        [`start${along}Index`]: fillLength < 0 ? Math.max(0, start + fillLength) : start,
        ...(end == null ? {} : { [`end${along}Index`]: fillLength > 0 ? end + fillLength : end }),
      },
      ALL_CELL_FIELDS,
    );
    return undefined;
  }) as Mapper<never>,

  setDataValidation: ((request: sheets_v4.Schema$SetDataValidationRequest, print) => {
    print.area(request.range, ['dataValidation']);
    return undefined;
  }) as Mapper<never>,

  addConditionalFormatRule: ((request: sheets_v4.Schema$AddConditionalFormatRuleRequest, print) => {
    for (const range of request.rule?.ranges ?? []) print.aspect(range.sheetId, 'conditionalFormats');
    return undefined;
  }) as Mapper<never>,

  updateConditionalFormatRule: ((request: sheets_v4.Schema$UpdateConditionalFormatRuleRequest, print) => {
    print.aspect(request.sheetId, 'conditionalFormats');
    for (const range of request.rule?.ranges ?? []) print.aspect(range.sheetId, 'conditionalFormats');
    return undefined;
  }) as Mapper<never>,

  deleteConditionalFormatRule: ((request: sheets_v4.Schema$DeleteConditionalFormatRuleRequest, print) => {
    print.aspect(request.sheetId, 'conditionalFormats');
    return undefined;
  }) as Mapper<never>,

  addNamedRange: namedRanges,
  updateNamedRange: namedRanges,
  deleteNamedRange: namedRanges,

  addProtectedRange: ((request: sheets_v4.Schema$AddProtectedRangeRequest, print) => {
    const range = request.protectedRange?.range;
    print.aspect(range && !request.protectedRange?.namedRangeId ? range.sheetId : 'any', 'protectedRanges');
    return undefined;
  }) as Mapper<never>,
  updateProtectedRange: anyTab('protectedRanges'),
  deleteProtectedRange: anyTab('protectedRanges'),

  // A basic filter with a sort sorts its range.
  setBasicFilter: ((request: sheets_v4.Schema$SetBasicFilterRequest, print) => {
    const range = request.filter?.range;
    print.aspect(range && !request.filter?.tableId ? range.sheetId : 'any', 'basicFilter');
    if (request.filter?.sortSpecs?.length) {
      if (!range) return 'sorts a table, whose cells undo cannot tell apart';
      print.area(range, ALL_CELL_FIELDS);
    }
    return undefined;
  }) as Mapper<never>,
  clearBasicFilter: ((request: sheets_v4.Schema$ClearBasicFilterRequest, print) => {
    print.aspect(request.sheetId, 'basicFilter');
    return undefined;
  }) as Mapper<never>,

  addFilterView: ((request: sheets_v4.Schema$AddFilterViewRequest, print) => {
    const filter = request.filter ?? {};
    print.aspect(
      filter.range && !filter.namedRangeId && !filter.tableId ? filter.range.sheetId : 'any',
      'filterViews',
    );
    return undefined;
  }) as Mapper<never>,
  updateFilterView: anyTab('filterViews'),
  deleteFilterView: anyTab('filterViews'),
  duplicateFilterView: anyTab('filterViews'),

  // A table's column names are its header row's values.
  addTable: ((request: sheets_v4.Schema$AddTableRequest, print) => {
    const range = request.table?.range;
    print.aspect(range?.sheetId, 'tables');
    if (range) print.area(headerRow(range), ['userEnteredValue']);
    return undefined;
  }) as Mapper<never>,
  updateTable: ((request: sheets_v4.Schema$UpdateTableRequest, print) => {
    const range = request.table?.range;
    print.aspect(range ? range.sheetId : 'any', 'tables');
    if (range) print.area(headerRow(range), ['userEnteredValue']);
    else if (
      topLevelFields(request.fields ?? '').some((path) => path === '*' || path.startsWith('columnProperties'))
    )
      return 'names columns without the table range, so undo cannot tell which cells it writes';
    return undefined;
  }) as Mapper<never>,
  deleteTable: anyTab('tables'),

  addChart: ((request: sheets_v4.Schema$AddChartRequest, print) => {
    const position = request.chart?.position;
    const anchor = position?.overlayPosition?.anchorCell?.sheetId ?? position?.sheetId;
    if (position?.newSheet || anchor == null) print.addsTabs = true;
    else print.aspect(anchor, 'charts');
    return undefined;
  }) as Mapper<never>,
  updateChartSpec: anyTab('charts'),
  updateEmbeddedObjectPosition: ((request: sheets_v4.Schema$UpdateEmbeddedObjectPositionRequest, print) => {
    print.aspect('any', 'charts');
    if (request.newPosition?.newSheet) print.addsTabs = true;
    return undefined;
  }) as Mapper<never>,
  deleteEmbeddedObject: anyTab('charts'),

  addBanding: ((request: sheets_v4.Schema$AddBandingRequest, print) => {
    print.aspect(request.bandedRange?.range?.sheetId, 'bandedRanges');
    return undefined;
  }) as Mapper<never>,
  updateBanding: anyTab('bandedRanges'),
  deleteBanding: anyTab('bandedRanges'),

  updateSheetProperties: ((request: sheets_v4.Schema$UpdateSheetPropertiesRequest, print) => {
    const paths = topLevelFields(request.fields ?? '');
    if (
      paths.some(
        (path) =>
          path === '*' ||
          path === 'gridProperties' ||
          /^gridProperties\.(rowCount|columnCount)$/.test(path) ||
          /^gridProperties\(.*\b(rowCount|columnCount)\b/.test(path),
      )
    )
      return 'sets the grid size, which deletes rows or columns undo cannot keep: insert_dimension and delete_dimension change it with undo';
    print.aspect(request.properties?.sheetId, 'properties');
    return undefined;
  }) as Mapper<never>,

  updateDimensionProperties: ((request: sheets_v4.Schema$UpdateDimensionPropertiesRequest, print) =>
    dimension(request.range, print)) as Mapper<never>,
  autoResizeDimensions: ((request: sheets_v4.Schema$AutoResizeDimensionsRequest, print) =>
    dimension(request.dimensions, print)) as Mapper<never>,

  addSheet: ((request: sheets_v4.Schema$AddSheetRequest, print) => {
    print.addsTabs = true;
    if (request.properties?.sheetId != null) print.addedIds.add(request.properties.sheetId);
    return undefined;
  }) as Mapper<never>,
  duplicateSheet: ((request: sheets_v4.Schema$DuplicateSheetRequest, print) => {
    print.addsTabs = true;
    if (request.newSheetId != null) print.addedIds.add(request.newSheetId);
    return undefined;
  }) as Mapper<never>,
};

function namedRanges(_request: unknown, print: FootprintBuilder): undefined {
  print.namedRanges = true;
  return undefined;
}

function anyTab(aspect: SheetAspect): Mapper<never> {
  return ((_request: unknown, print: FootprintBuilder) => {
    print.aspect('any', aspect);
    return undefined;
  }) as Mapper<never>;
}

function headerRow(range: sheets_v4.Schema$GridRange): sheets_v4.Schema$GridRange {
  return { ...range, endRowIndex: (range.startRowIndex ?? 0) + 1 };
}

function dimension(
  range: sheets_v4.Schema$DimensionRange | undefined,
  print: FootprintBuilder,
): string | undefined {
  if (!range) return 'names no rows or columns (a data source sheet is not kept)';
  if (range.endIndex == null) return 'names rows or columns without an endIndex';
  print.dimensions.push({
    sheetId: range.sheetId ?? 0,
    dimension: range.dimension === 'COLUMNS' ? 'COLUMNS' : 'ROWS',
    start: range.startIndex ?? 0,
    end: range.endIndex,
  });
  return undefined;
}
