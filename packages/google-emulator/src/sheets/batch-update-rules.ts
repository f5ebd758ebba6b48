/**
 * spreadsheets.batchUpdate request kinds for rules and objects on a grid: data validation,
 * conditional formats, named ranges and protected ranges (added, updated by mask, deleted). Each throws Google's 400 text, which
 * `applyBatchUpdate` prefixes with `Invalid requests[i].kind: `.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { formatRange, type GridBounds } from './a1-notation.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import { cellAt, positionsIn, setCell } from './grid.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

type Response = sheets_v4.Schema$Response;
type GridRange = sheets_v4.Schema$GridRange;
type BooleanCondition = sheets_v4.Schema$BooleanCondition;

const problem = (message: string) => googleErrors.badRequest(message);

export function sheetById(spreadsheet: SpreadsheetModel, sheetId: number | null | undefined): SheetModel {
  const id = sheetId ?? 0;
  const sheet = spreadsheet.sheets.find((candidate) => candidate.properties.sheetId === id);
  if (!sheet) throw problem(`No grid with id: ${id}`);
  return sheet;
}

/** The sheet and bounds of a GridRange, refused as Google does when it leaves the grid. */
export function onGrid(spreadsheet: SpreadsheetModel, range: GridRange | null | undefined) {
  if (!range) throw problem('range is required.');
  const sheet = sheetById(spreadsheet, range.sheetId);
  const grid = sheet.properties.gridProperties;
  const bounds: GridBounds = {
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? grid.rowCount,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? grid.columnCount,
  };
  if (
    bounds.startRow < 0 ||
    bounds.startColumn < 0 ||
    bounds.endRow < bounds.startRow ||
    bounds.endColumn < bounds.startColumn
  ) {
    throw problem('Invalid range: start index must be at least 0 and not after the end index.');
  }
  if (bounds.endRow > grid.rowCount || bounds.endColumn > grid.columnCount) {
    throw problem(
      `Range (${formatRange(sheet.properties.title, bounds)}) exceeds grid limits. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
  return { sheet, bounds };
}

/**
 * How many values each condition takes, and where it may be used (Sheets API ConditionType):
 * `v` data validation, `f` conditional formatting.
 */
const CONDITIONS: Record<string, { values: [min: number, max: number]; use: 'vf' | 'v' | 'f' }> = {
  NUMBER_GREATER: { values: [1, 1], use: 'vf' },
  NUMBER_GREATER_THAN_EQ: { values: [1, 1], use: 'vf' },
  NUMBER_LESS: { values: [1, 1], use: 'vf' },
  NUMBER_LESS_THAN_EQ: { values: [1, 1], use: 'vf' },
  NUMBER_EQ: { values: [1, 1], use: 'vf' },
  NUMBER_NOT_EQ: { values: [1, 1], use: 'vf' },
  NUMBER_BETWEEN: { values: [2, 2], use: 'vf' },
  NUMBER_NOT_BETWEEN: { values: [2, 2], use: 'vf' },
  TEXT_CONTAINS: { values: [1, 1], use: 'vf' },
  TEXT_NOT_CONTAINS: { values: [1, 1], use: 'vf' },
  TEXT_STARTS_WITH: { values: [1, 1], use: 'f' },
  TEXT_ENDS_WITH: { values: [1, 1], use: 'f' },
  TEXT_EQ: { values: [1, 1], use: 'vf' },
  TEXT_NOT_EQ: { values: [1, 1], use: 'f' },
  TEXT_IS_EMAIL: { values: [0, 0], use: 'v' },
  TEXT_IS_URL: { values: [0, 0], use: 'v' },
  DATE_EQ: { values: [1, 1], use: 'vf' },
  DATE_NOT_EQ: { values: [1, 1], use: 'f' },
  DATE_BEFORE: { values: [1, 1], use: 'vf' },
  DATE_AFTER: { values: [1, 1], use: 'vf' },
  DATE_ON_OR_BEFORE: { values: [1, 1], use: 'v' },
  DATE_ON_OR_AFTER: { values: [1, 1], use: 'v' },
  DATE_BETWEEN: { values: [2, 2], use: 'v' },
  DATE_NOT_BETWEEN: { values: [2, 2], use: 'v' },
  DATE_IS_VALID: { values: [0, 0], use: 'v' },
  ONE_OF_RANGE: { values: [1, 1], use: 'v' },
  ONE_OF_LIST: { values: [1, 500], use: 'v' },
  BLANK: { values: [0, 0], use: 'f' },
  NOT_BLANK: { values: [0, 0], use: 'f' },
  CUSTOM_FORMULA: { values: [1, 1], use: 'vf' },
  BOOLEAN: { values: [0, 2], use: 'v' },
};

export function checkCondition(condition: BooleanCondition | null | undefined, use: 'v' | 'f'): void {
  if (!condition?.type) throw problem('A condition type is required.');
  const kind = CONDITIONS[condition.type];
  if (!kind?.use.includes(use)) {
    throw problem(
      `Invalid ${use === 'v' ? 'data validation' : 'conditional format'} condition type: ${condition.type}`,
    );
  }
  const values = condition.values ?? [];
  const [min, max] = kind.values;
  if (values.length < min || values.length > max) {
    const wanted = min === max ? `${min}` : max >= 500 ? `at least ${min}` : `${min} to ${max}`;
    throw problem(
      `Condition ${condition.type} requires ${wanted} condition value${min === 1 && max === 1 ? '' : 's'}, but ${values.length} ${values.length === 1 ? 'was' : 'were'} given.`,
    );
  }
  for (const value of values) {
    const set = [value.userEnteredValue != null, value.relativeDate != null].filter(Boolean).length;
    if (set !== 1)
      throw problem('Each condition value must set exactly one of userEnteredValue or relativeDate.');
    if (value.relativeDate != null && !condition.type.startsWith('DATE_'))
      throw problem(`relativeDate is only valid for date conditions, not ${condition.type}.`);
  }
  if (condition.type === 'CUSTOM_FORMULA' && !values[0]?.userEnteredValue?.startsWith('='))
    throw problem('A CUSTOM_FORMULA condition value must be a formula starting with =.');
  if (condition.type === 'ONE_OF_RANGE' && !values[0]?.userEnteredValue?.startsWith('='))
    throw problem('A ONE_OF_RANGE condition value must be a range reference starting with =.');
}

/** Sets (or, without a rule, clears) the data-validation rule of every cell in the range. */
export function setDataValidation(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$SetDataValidationRequest,
): Response {
  const { sheet, bounds } = onGrid(spreadsheet, request.range);
  if (request.rule) checkCondition(request.rule.condition, 'v');
  for (const [row, column] of positionsIn(bounds)) {
    const { dataValidation: _replaced, ...rest } = cellAt(sheet, row, column) ?? {};
    setCell(
      sheet,
      row,
      column,
      request.rule ? { ...rest, dataValidation: structuredClone(request.rule) } : rest,
    );
  }
  return {};
}

/** A rule's ranges (on one sheet, inside its grid) and its one kind, checked as Google does. */
function checkFormatRule(
  spreadsheet: SpreadsheetModel,
  rule: sheets_v4.Schema$ConditionalFormatRule | null | undefined,
): SheetModel {
  if (!rule) throw problem('rule is required.');
  const ranges = rule.ranges ?? [];
  if (ranges.length === 0) throw problem('A conditional format rule must have at least one range.');
  const sheets = new Set(ranges.map((range) => onGrid(spreadsheet, range).sheet));
  if (sheets.size > 1) throw problem('All ranges of a conditional format rule must be on the same sheet.');
  if ((rule.booleanRule == null) === (rule.gradientRule == null))
    throw problem('A conditional format rule must have exactly one of booleanRule or gradientRule.');
  if (rule.booleanRule) {
    checkCondition(rule.booleanRule.condition, 'f');
    if (!rule.booleanRule.format) throw problem('booleanRule.format is required.');
  } else {
    const gradient = rule.gradientRule as sheets_v4.Schema$GradientRule;
    if (!gradient.minpoint || !gradient.maxpoint)
      throw problem('A gradient rule requires a minpoint and a maxpoint.');
    for (const [name, point] of [
      ['minpoint', gradient.minpoint],
      ['midpoint', gradient.midpoint],
      ['maxpoint', gradient.maxpoint],
    ] as const) {
      if (!point) continue;
      if (!point.type) throw problem(`${name}.type is required.`);
      const needsValue = !['MIN', 'MAX'].includes(point.type);
      if (needsValue && (point.value == null || point.value === ''))
        throw problem(`${name} of type ${point.type} requires a value.`);
      if (point.type === 'MIN' && name !== 'minpoint') throw problem(`MIN is only valid for the minpoint.`);
      if (point.type === 'MAX' && name !== 'maxpoint') throw problem(`MAX is only valid for the maxpoint.`);
    }
  }
  return [...sheets][0] as SheetModel;
}

function ruleIndex(sheet: SheetModel, index: number | null | undefined): number {
  const at = index ?? 0;
  const count = sheet.conditionalFormats?.length ?? 0;
  if (!Number.isInteger(at) || at < 0 || at >= count) {
    throw problem(
      `No conditional format on sheet: ${sheet.properties.sheetId} at index: ${at} (the sheet has ${count}).`,
    );
  }
  return at;
}

export function addConditionalFormatRule(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AddConditionalFormatRuleRequest,
): Response {
  const sheet = checkFormatRule(spreadsheet, request.rule);
  sheet.conditionalFormats ??= [];
  const rules = sheet.conditionalFormats;
  const at = Math.min(Math.max(request.index ?? 0, 0), rules.length);
  rules.splice(at, 0, structuredClone(request.rule as sheets_v4.Schema$ConditionalFormatRule));
  return {};
}

/** Replaces the rule at `index` with `rule`, or moves it to `newIndex` (on `sheetId`). */
export function updateConditionalFormatRule(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateConditionalFormatRuleRequest,
): Response {
  if ((request.rule == null) === (request.newIndex == null))
    throw problem('Exactly one of rule or newIndex must be set.');
  if (request.rule) {
    const sheet = checkFormatRule(spreadsheet, request.rule);
    const rules = sheet.conditionalFormats ?? [];
    const at = ruleIndex(sheet, request.index);
    const oldRule = rules[at] as sheets_v4.Schema$ConditionalFormatRule;
    rules[at] = structuredClone(request.rule);
    return {
      updateConditionalFormatRule: {
        newRule: structuredClone(request.rule),
        newIndex: at,
        oldRule,
        oldIndex: at,
      },
    };
  }
  const sheet = sheetById(spreadsheet, request.sheetId);
  const rules = sheet.conditionalFormats ?? [];
  const at = ruleIndex(sheet, request.index);
  const to = request.newIndex as number;
  if (to < 0 || to >= rules.length)
    throw problem(`newIndex ${to} is out of bounds: the sheet has ${rules.length} conditional formats.`);
  const [moved] = rules.splice(at, 1) as [sheets_v4.Schema$ConditionalFormatRule];
  rules.splice(to, 0, moved);
  return {
    updateConditionalFormatRule: { newRule: structuredClone(moved), newIndex: to, oldIndex: at },
  };
}

export function deleteConditionalFormatRule(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteConditionalFormatRuleRequest,
): Response {
  const sheet = sheetById(spreadsheet, request.sheetId);
  const at = ruleIndex(sheet, request.index);
  const [rule] = (sheet.conditionalFormats ?? []).splice(at, 1);
  if (sheet.conditionalFormats?.length === 0) delete sheet.conditionalFormats;
  return { deleteConditionalFormatRule: { rule } };
}

/**
 * Google's rules for a name: letters, digits and underscores, not starting with a digit, not
 * `true`/`false`, at most 250 characters, and not readable as a cell in A1 or R1C1.
 */
export function isValidRangeName(name: string): boolean {
  return (
    /^[\p{L}_][\p{L}\p{N}_]{0,249}$/u.test(name) &&
    !/^(true|false)$/i.test(name) &&
    !/^[A-Za-z]{1,3}[0-9]+$/.test(name) &&
    !/^[Rr][0-9]*[Cc][0-9]*$/.test(name)
  );
}

function checkRangeName(spreadsheet: SpreadsheetModel, name: string | null | undefined, except?: string) {
  if (!name || !isValidRangeName(name)) {
    throw problem(
      `Invalid name for a named range: "${name ?? ''}". Names may hold only letters, numbers and underscores, cannot start with a number, and cannot look like a cell reference.`,
    );
  }
  const clash = spreadsheet.namedRanges?.find(
    (each) => each.namedRangeId !== except && each.name?.toLowerCase() === name.toLowerCase(),
  );
  if (clash) throw problem(`A named range with the name "${name}" already exists.`);
}

function namedRangeById(spreadsheet: SpreadsheetModel, id: string | null | undefined) {
  const named = spreadsheet.namedRanges?.find((each) => each.namedRangeId === id);
  if (!named) throw problem(`No named range with id: ${id ?? ''}`);
  return named;
}

export function addNamedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AddNamedRangeRequest,
): Response {
  const requested = request.namedRange;
  if (!requested) throw problem('namedRange is required.');
  checkRangeName(spreadsheet, requested.name);
  const { sheet } = onGrid(spreadsheet, requested.range);
  if (
    requested.namedRangeId &&
    spreadsheet.namedRanges?.some((each) => each.namedRangeId === requested.namedRangeId)
  )
    throw problem(`A named range with id ${requested.namedRangeId} already exists.`);
  const namedRange: sheets_v4.Schema$NamedRange = {
    namedRangeId: requested.namedRangeId ?? randomBytes(6).toString('hex'),
    name: requested.name as string,
    range: { ...structuredClone(requested.range), sheetId: sheet.properties.sheetId },
  };
  spreadsheet.namedRanges ??= [];
  spreadsheet.namedRanges.push(namedRange);
  return { addNamedRange: { namedRange: structuredClone(namedRange) } };
}

/** Changes the masked fields (`name`, `range`) of the named range with the request's id. */
export function updateNamedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateNamedRangeRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const update = request.namedRange ?? {};
  const named = namedRangeById(spreadsheet, update.namedRangeId);
  const fields = request.fields.split(',').map((field) => field.trim());
  const all = fields.includes('*');
  for (const field of fields) {
    if (!['*', 'name', 'range'].includes(field) && !field.startsWith('range.'))
      throw problem(`Invalid field mask: ${field}`);
  }
  if (all || fields.includes('name')) {
    checkRangeName(spreadsheet, update.name, named.namedRangeId ?? undefined);
  }
  const rangeChanged = all || fields.some((field) => field === 'range' || field.startsWith('range.'));
  if (rangeChanged) onGrid(spreadsheet, update.range);
  if (all || fields.includes('name')) named.name = update.name as string;
  if (rangeChanged) named.range = structuredClone(update.range as GridRange);
  return {};
}

export function deleteNamedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteNamedRangeRequest,
): Response {
  const named = namedRangeById(spreadsheet, request.namedRangeId);
  spreadsheet.namedRanges = spreadsheet.namedRanges?.filter((each) => each !== named);
  if (spreadsheet.namedRanges?.length === 0) delete spreadsheet.namedRanges;
  return {};
}

function allProtectedRanges(spreadsheet: SpreadsheetModel) {
  return spreadsheet.sheets.flatMap((sheet) =>
    (sheet.protectedRanges ?? []).map((protectedRange) => ({ sheet, protectedRange })),
  );
}

/**
 * A protected range as stored: its cells (a range — only a `sheetId` for a whole sheet — or a
 * named range's), `description`, `warningOnly`, `unprotectedRanges`, and `editors` unless it only
 * warns.
 */
function placedProtection(
  spreadsheet: SpreadsheetModel,
  requested: sheets_v4.Schema$ProtectedRange,
  protectedRangeId: number,
): { sheet: SheetModel; protectedRange: sheets_v4.Schema$ProtectedRange } {
  if ((requested.range == null) === (requested.namedRangeId == null))
    throw problem('Exactly one of range or namedRangeId must be set.');
  const range = requested.range ?? namedRangeById(spreadsheet, requested.namedRangeId).range;
  const { sheet } = onGrid(spreadsheet, range);
  const protectedRange: sheets_v4.Schema$ProtectedRange = {
    protectedRangeId,
    ...(requested.range
      ? { range: { ...structuredClone(requested.range), sheetId: sheet.properties.sheetId } }
      : {}),
    ...(requested.namedRangeId ? { namedRangeId: requested.namedRangeId } : {}),
    ...(requested.description ? { description: requested.description } : {}),
    ...(requested.warningOnly ? { warningOnly: true } : {}),
    ...(requested.unprotectedRanges?.length
      ? { unprotectedRanges: structuredClone(requested.unprotectedRanges) }
      : {}),
    // The requester owns the file in the emulator, so may always edit what they protect.
    requestingUserCanEdit: true,
    ...(requested.editors && !requested.warningOnly ? { editors: structuredClone(requested.editors) } : {}),
  };
  return { sheet, protectedRange };
}

/** Protects a range, a whole sheet (a range of only its sheetId) or a named range. */
export function addProtectedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AddProtectedRangeRequest,
): Response {
  const requested = request.protectedRange;
  if (!requested) throw problem('protectedRange is required.');
  const taken = new Set(allProtectedRanges(spreadsheet).map((each) => each.protectedRange.protectedRangeId));
  if (requested.protectedRangeId != null && taken.has(requested.protectedRangeId))
    throw problem(`A protected range with id ${requested.protectedRangeId} already exists.`);
  let id = requested.protectedRangeId ?? randomInt(1, 2 ** 31 - 1);
  while (requested.protectedRangeId == null && taken.has(id)) id = randomInt(1, 2 ** 31 - 1);
  const { sheet, protectedRange } = placedProtection(spreadsheet, requested, id);
  sheet.protectedRanges ??= [];
  sheet.protectedRanges.push(protectedRange);
  return { addProtectedRange: { protectedRange: structuredClone(protectedRange) } };
}

const PROTECTION_FIELDS = [
  'range',
  'namedRangeId',
  'description',
  'warningOnly',
  'unprotectedRanges',
  'editors',
];

/**
 * Changes the masked fields of the protected range with the request's id, as Google's
 * UpdateProtectedRangeRequest does (`fields`: at least one, the root `protectedRange` implied, `*`
 * for all; https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request#updateprotectedrangerequest).
 * A new range replaces a named range and the other way round; a range moved to another sheet
 * moves the protection with it.
 */
export function updateProtectedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateProtectedRangeRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const update = request.protectedRange ?? {};
  const found = allProtectedRanges(spreadsheet).find(
    (each) => each.protectedRange.protectedRangeId === update.protectedRangeId,
  );
  if (!found) throw problem(`No protected range with id: ${update.protectedRangeId ?? ''}`);
  const masked = request.fields.split(',').map((field) => field.trim());
  for (const field of masked) {
    const root = field.split('.')[0] as string;
    if (field !== '*' && !PROTECTION_FIELDS.includes(root)) throw problem(`Invalid field mask: ${field}`);
  }
  const next = structuredClone(found.protectedRange) as Record<string, unknown>;
  applyMaskedUpdate(next, update as Record<string, unknown>, request.fields);
  const touches = (name: string) => masked.some((field) => field === '*' || field.split('.')[0] === name);
  if (touches('range') && next.range != null && !touches('namedRangeId')) delete next.namedRangeId;
  if (touches('namedRangeId') && next.namedRangeId != null && !touches('range')) delete next.range;
  const { sheet, protectedRange } = placedProtection(
    spreadsheet,
    next as sheets_v4.Schema$ProtectedRange,
    found.protectedRange.protectedRangeId as number,
  );
  const list = found.sheet.protectedRanges ?? [];
  if (sheet === found.sheet) {
    list[list.indexOf(found.protectedRange)] = protectedRange;
    return {};
  }
  found.sheet.protectedRanges = list.filter((each) => each !== found.protectedRange);
  if (found.sheet.protectedRanges.length === 0) delete found.sheet.protectedRanges;
  sheet.protectedRanges ??= [];
  sheet.protectedRanges.push(protectedRange);
  return {};
}

export function deleteProtectedRange(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteProtectedRangeRequest,
): Response {
  const found = allProtectedRanges(spreadsheet).find(
    (each) => each.protectedRange.protectedRangeId === request.protectedRangeId,
  );
  if (!found) throw problem(`No protected range with id: ${request.protectedRangeId ?? ''}`);
  const { sheet, protectedRange } = found;
  sheet.protectedRanges = sheet.protectedRanges?.filter((each) => each !== protectedRange);
  if (sheet.protectedRanges?.length === 0) delete sheet.protectedRanges;
  return {};
}

/**
 * Rows or columns inserted (`count` > 0 at `start`) or deleted (`count` < 0: [start, start −
 * count)) on `sheet` move the rules and objects on it, as in Google: a range below or right of the
 * change moves, one across it grows or shrinks; a conditional-format range, a protected range or a
 * named range left with no cells is dropped (with its rule, when it was the rule's last range), and
 * so is a merge left with one cell.
 */
export function shiftRangesForDimension(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  rows: boolean,
  start: number,
  count: number,
): void {
  const [low, high] = rows
    ? (['startRowIndex', 'endRowIndex'] as const)
    : (['startColumnIndex', 'endColumnIndex'] as const);
  const end = start - count;
  const moved = (index: number | null | undefined, isEnd: boolean): number | null | undefined => {
    if (index == null) return index;
    if (count > 0) return index > start || (!isEnd && index === start) ? index + count : index;
    if (index >= end) return index + count;
    return index > start ? start : index;
  };
  /** Moves a range in place; false when it no longer holds a cell. */
  const shift = (range: GridRange | null | undefined): boolean => {
    if (!range || (range.sheetId ?? 0) !== sheet.properties.sheetId) return true;
    const from = moved(range[low], false);
    const to = moved(range[high], true);
    if (from != null) range[low] = from;
    if (to != null) range[high] = to;
    return from == null || to == null || from < to;
  };
  if (sheet.conditionalFormats) {
    sheet.conditionalFormats = sheet.conditionalFormats.filter((rule) => {
      rule.ranges = (rule.ranges ?? []).filter(shift);
      return rule.ranges.length > 0;
    });
    if (sheet.conditionalFormats.length === 0) delete sheet.conditionalFormats;
  }
  if (sheet.protectedRanges) {
    sheet.protectedRanges = sheet.protectedRanges.filter((each) => each.range == null || shift(each.range));
    if (sheet.protectedRanges.length === 0) delete sheet.protectedRanges;
  }
  if (spreadsheet.namedRanges) {
    spreadsheet.namedRanges = spreadsheet.namedRanges.filter((each) => shift(each.range));
    if (spreadsheet.namedRanges.length === 0) delete spreadsheet.namedRanges;
  }
  // Filters, tables and banded ranges move with their cells too; one left with no cells goes.
  if (sheet.basicFilter?.range && !shift(sheet.basicFilter.range)) delete sheet.basicFilter;
  if (sheet.filterViews) {
    sheet.filterViews = sheet.filterViews.filter((view) => view.range == null || shift(view.range));
    if (sheet.filterViews.length === 0) delete sheet.filterViews;
  }
  if (sheet.tables) {
    sheet.tables = sheet.tables.filter((table) => shift(table.range));
    if (sheet.tables.length === 0) delete sheet.tables;
  }
  if (sheet.bandedRanges) {
    sheet.bandedRanges = sheet.bandedRanges.filter((banding) => shift(banding.range));
    if (sheet.bandedRanges.length === 0) delete sheet.bandedRanges;
  }
  // Merged cells move with their cells, grow with rows or columns inserted inside them, and come
  // apart when fewer than two cells are left.
  if (sheet.merges) {
    const [first, last] = rows ? (['startRow', 'endRow'] as const) : (['startColumn', 'endColumn'] as const);
    sheet.merges = sheet.merges.filter((merge) => {
      merge[first] = moved(merge[first], false)!;
      merge[last] = moved(merge[last], true)!;
      return (merge.endRow - merge.startRow) * (merge.endColumn - merge.startColumn) >= 2;
    });
    if (sheet.merges.length === 0) delete sheet.merges;
  }
}

/** A duplicated sheet takes its source's conditional formats, on its own ranges, as in Google. */
export function copyConditionalFormats(source: SheetModel, copy: SheetModel): void {
  if (!source.conditionalFormats?.length) return;
  copy.conditionalFormats = source.conditionalFormats.map((rule) => ({
    ...structuredClone(rule),
    ranges: (rule.ranges ?? []).map((range) => ({
      ...structuredClone(range),
      sheetId: copy.properties.sheetId,
    })),
  }));
}
