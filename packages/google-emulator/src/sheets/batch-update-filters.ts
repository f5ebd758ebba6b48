/**
 * spreadsheets.batchUpdate request kinds for filters: a sheet's basic filter and its filter views
 * (setBasicFilter, clearBasicFilter, addFilterView, updateFilterView with a field mask,
 * deleteFilterView, duplicateFilterView). Each throws Google's 400 text, which `applyBatchUpdate`
 * prefixes with `Invalid requests[i].kind: `. Filters are stored, not applied: no row is hidden.
 */
import { randomInt } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import type { GridBounds } from './a1-notation.ts';
import { checkCondition, onGrid, sheetById } from './batch-update-rules.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

type Response = sheets_v4.Schema$Response;
type FilterView = sheets_v4.Schema$FilterView;
type BasicFilter = sheets_v4.Schema$BasicFilter;

const problem = (message: string) => googleErrors.badRequest(message);

const SORT_ORDERS = ['ASCENDING', 'DESCENDING'];

/** When writing, a filter names its cells one way only. */
function checkOneSource(filter: BasicFilter | FilterView): void {
  const sources = [filter.range, (filter as FilterView).namedRangeId, filter.tableId];
  if (sources.filter((source) => source != null).length > 1)
    throw problem('Only one of range, namedRangeId or tableId may be set.');
}

/**
 * The filter's range (given, or its named range's or table's), checked against the grid, and its
 * sort and criteria checked against that range. Answers the filter as Google stores it: criteria
 * both as filterSpecs and as the deprecated map keyed by column index.
 */
function normalizedFilter<F extends BasicFilter | FilterView>(
  spreadsheet: SpreadsheetModel,
  filter: F,
): { sheet: SheetModel; filter: F; bounds: GridBounds } {
  const view = filter as FilterView;
  // A filter on a named range or a table follows it: its range is read from there.
  let range = filter.range;
  if (view.namedRangeId != null) {
    range = spreadsheet.namedRanges?.find((each) => each.namedRangeId === view.namedRangeId)?.range;
    if (!range) throw problem(`No named range with id: ${view.namedRangeId}`);
  } else if (filter.tableId != null) {
    range = spreadsheet.sheets
      .flatMap((sheet) => sheet.tables ?? [])
      .find((table) => table.tableId === filter.tableId)?.range;
    if (!range) throw problem(`No table with id: ${filter.tableId}`);
  }
  if (!range) throw problem('A filter requires a range.');
  const { sheet, bounds } = onGrid(spreadsheet, range);
  const inRange = (index: number | null | undefined) =>
    index != null && Number.isInteger(index) && index >= bounds.startColumn && index < bounds.endColumn;

  const specs: sheets_v4.Schema$FilterSpec[] = filter.filterSpecs
    ? structuredClone(filter.filterSpecs)
    : Object.entries(filter.criteria ?? {}).map(([column, filterCriteria]) => ({
        columnIndex: Number(column),
        filterCriteria: structuredClone(filterCriteria),
      }));
  const seen = new Set<number>();
  for (const spec of specs) {
    if (!inRange(spec.columnIndex))
      throw problem(
        `Invalid filterSpecs: column index ${spec.columnIndex ?? ''} is outside the filter's range (columns ${bounds.startColumn} to ${bounds.endColumn - 1}).`,
      );
    if (seen.has(spec.columnIndex as number))
      throw problem(`Invalid filterSpecs: column index ${spec.columnIndex} is given more than once.`);
    seen.add(spec.columnIndex as number);
    const criteria = spec.filterCriteria ?? {};
    if (criteria.condition) checkCondition(criteria.condition, 'f');
  }
  for (const sort of filter.sortSpecs ?? []) {
    if (!inRange(sort.dimensionIndex))
      throw problem(
        `Invalid sortSpecs: dimension index ${sort.dimensionIndex ?? ''} is outside the filter's range (columns ${bounds.startColumn} to ${bounds.endColumn - 1}).`,
      );
    if (sort.sortOrder != null && !SORT_ORDERS.includes(sort.sortOrder))
      throw problem(`Invalid sortSpecs: sort order ${sort.sortOrder} is not ASCENDING or DESCENDING.`);
  }
  const stored = structuredClone(filter);
  stored.range = { ...structuredClone(range), sheetId: sheet.properties.sheetId };
  if (specs.length > 0) {
    stored.filterSpecs = specs;
    stored.criteria = Object.fromEntries(
      specs.map((spec) => [String(spec.columnIndex), spec.filterCriteria ?? {}]),
    );
  } else {
    delete stored.filterSpecs;
    delete stored.criteria;
  }
  if (!stored.sortSpecs?.length) delete stored.sortSpecs;
  return { sheet, filter: stored, bounds };
}

/** Sets (replacing any) the basic filter of the sheet the filter's range is on. */
export function setBasicFilter(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$SetBasicFilterRequest,
): Response {
  if (!request.filter) throw problem('filter is required.');
  checkOneSource(request.filter);
  const { sheet, filter } = normalizedFilter(spreadsheet, request.filter);
  sheet.basicFilter = filter;
  return {};
}

export function clearBasicFilter(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$ClearBasicFilterRequest,
): Response {
  const sheet = sheetById(spreadsheet, request.sheetId);
  delete sheet.basicFilter;
  return {};
}

function allFilterViews(spreadsheet: SpreadsheetModel) {
  return spreadsheet.sheets.flatMap((sheet) => (sheet.filterViews ?? []).map((view) => ({ sheet, view })));
}

function filterViewById(spreadsheet: SpreadsheetModel, id: number | null | undefined) {
  const found = allFilterViews(spreadsheet).find((each) => each.view.filterViewId === id);
  if (!found) throw problem(`No filter view with id: ${id ?? ''}`);
  return found;
}

function newFilterViewId(spreadsheet: SpreadsheetModel): number {
  const taken = new Set(allFilterViews(spreadsheet).map((each) => each.view.filterViewId));
  let id = randomInt(1, 2 ** 31 - 1);
  while (taken.has(id)) id = randomInt(1, 2 ** 31 - 1);
  return id;
}

function placeFilterView(sheet: SheetModel, view: FilterView): void {
  sheet.filterViews ??= [];
  sheet.filterViews.push(view);
}

function removeFilterView(sheet: SheetModel, view: FilterView): void {
  sheet.filterViews = (sheet.filterViews ?? []).filter((each) => each !== view);
  if (sheet.filterViews.length === 0) delete sheet.filterViews;
}

export function addFilterView(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AddFilterViewRequest,
): Response {
  if (!request.filter) throw problem('filter is required.');
  checkOneSource(request.filter);
  const requestedId = request.filter.filterViewId;
  if (
    requestedId != null &&
    allFilterViews(spreadsheet).some((each) => each.view.filterViewId === requestedId)
  )
    throw problem(`A filter view with id ${requestedId} already exists.`);
  const { sheet, filter } = normalizedFilter(spreadsheet, request.filter);
  const view: FilterView = {
    ...filter,
    filterViewId: requestedId ?? newFilterViewId(spreadsheet),
    title: filter.title || `Filter ${(sheet.filterViews?.length ?? 0) + 1}`,
  };
  placeFilterView(sheet, view);
  return { addFilterView: { filter: structuredClone(view) } };
}

/** Changes the masked fields of the filter view with the request's filterViewId. */
export function updateFilterView(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateFilterViewRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const update = request.filter ?? {};
  const { sheet, view } = filterViewById(spreadsheet, update.filterViewId);
  const next = structuredClone(view) as Record<string, unknown>;
  applyMaskedUpdate(next, update as Record<string, unknown>, request.fields);
  if (next.filterViewId !== view.filterViewId) throw problem('filterViewId cannot be changed.');
  // A new range (or source) replaces the old one; the map of criteria follows filterSpecs.
  const masked = request.fields.split(',').map((field) => field.trim());
  const touches = (name: string) => masked.some((field) => field === name || field.startsWith(`${name}.`));
  if (touches('filterSpecs')) delete next.criteria;
  const sources = ['range', 'namedRangeId', 'tableId'];
  if (sources.some(touches)) for (const source of sources) if (!touches(source)) delete next[source];
  const { sheet: target, filter } = normalizedFilter(spreadsheet, next as FilterView);
  if (!filter.title) throw problem('A filter view must have a title.');
  removeFilterView(sheet, view);
  placeFilterView(target, filter);
  return {};
}

export function deleteFilterView(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteFilterViewRequest,
): Response {
  const { sheet, view } = filterViewById(spreadsheet, request.filterId);
  removeFilterView(sheet, view);
  return {};
}

export function duplicateFilterView(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DuplicateFilterViewRequest,
): Response {
  const { sheet, view } = filterViewById(spreadsheet, request.filterId);
  const copy: FilterView = {
    ...structuredClone(view),
    filterViewId: newFilterViewId(spreadsheet),
    title: `Copy of ${view.title ?? ''}`,
  };
  placeFilterView(sheet, copy);
  return { duplicateFilterView: { filter: structuredClone(copy) } };
}
