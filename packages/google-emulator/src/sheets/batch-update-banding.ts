/**
 * spreadsheets.batchUpdate request kinds for banded ranges (alternating colours): addBanding,
 * updateBanding with a field mask, deleteBanding
 * (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request#addbandingrequest
 * and the two after it; the object is
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/sheets#bandedrange).
 * Kept in `sheets[].bandedRanges` of the sheet their range is on; stored, not drawn. Each throws
 * Google's 400 text, which `applyBatchUpdate` prefixes with `Invalid requests[i].kind: `.
 */
import { randomInt } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { onGrid } from './batch-update-rules.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

type Response = sheets_v4.Schema$Response;
type BandedRange = sheets_v4.Schema$BandedRange;

const problem = (message: string) => googleErrors.badRequest(message);

const BANDING_FIELDS = ['range', 'rowProperties', 'columnProperties'];

function allBandings(spreadsheet: SpreadsheetModel) {
  return spreadsheet.sheets.flatMap((sheet) =>
    (sheet.bandedRanges ?? []).map((banding) => ({ sheet, banding })),
  );
}

function bandingById(spreadsheet: SpreadsheetModel, id: number | null | undefined) {
  const found = allBandings(spreadsheet).find((each) => each.banding.bandedRangeId === id);
  if (!found) throw problem(`No banded range with id: ${id ?? ''}`);
  return found;
}

/** The banding as stored: its range on a grid, and row or column properties (at least one). */
function placedBanding(spreadsheet: SpreadsheetModel, banding: BandedRange, id: number) {
  const { sheet } = onGrid(spreadsheet, banding.range);
  if (!banding.rowProperties && !banding.columnProperties)
    throw problem('At least one of rowProperties or columnProperties must be specified.');
  const stored: BandedRange = {
    bandedRangeId: id,
    range: { ...structuredClone(banding.range), sheetId: sheet.properties.sheetId },
    ...(banding.rowProperties ? { rowProperties: structuredClone(banding.rowProperties) } : {}),
    ...(banding.columnProperties ? { columnProperties: structuredClone(banding.columnProperties) } : {}),
  };
  return { sheet, banding: stored };
}

function place(sheet: SheetModel, banding: BandedRange): void {
  sheet.bandedRanges ??= [];
  sheet.bandedRanges.push(banding);
}

function remove(sheet: SheetModel, banding: BandedRange): void {
  sheet.bandedRanges = (sheet.bandedRanges ?? []).filter((each) => each !== banding);
  if (sheet.bandedRanges.length === 0) delete sheet.bandedRanges;
}

/** "The bandedRangeId field is optional; if one is not set, an id will be randomly generated." */
export function addBanding(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$AddBandingRequest,
): Response {
  const requested = request.bandedRange;
  if (!requested) throw problem('bandedRange is required.');
  const taken = new Set(allBandings(spreadsheet).map((each) => each.banding.bandedRangeId));
  if (requested.bandedRangeId != null && taken.has(requested.bandedRangeId))
    throw problem(`A banded range with id ${requested.bandedRangeId} already exists.`);
  let id = requested.bandedRangeId ?? randomInt(1, 2 ** 31 - 1);
  while (requested.bandedRangeId == null && taken.has(id)) id = randomInt(1, 2 ** 31 - 1);
  const { sheet, banding } = placedBanding(spreadsheet, requested, id);
  place(sheet, banding);
  return { addBanding: { bandedRange: structuredClone(banding) } };
}

/** The masked fields (`range`, `rowProperties`, `columnProperties`, `*`) of the banding with the id given. */
export function updateBanding(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateBandingRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  for (const field of request.fields.split(',').map((each) => each.trim())) {
    if (field !== '*' && !BANDING_FIELDS.includes(field.split('.')[0] as string))
      throw problem(`Invalid field mask: ${field}`);
  }
  const update = request.bandedRange ?? {};
  const found = bandingById(spreadsheet, update.bandedRangeId);
  const next = structuredClone(found.banding) as Record<string, unknown>;
  applyMaskedUpdate(next, update as Record<string, unknown>, request.fields);
  const { sheet, banding } = placedBanding(
    spreadsheet,
    next as BandedRange,
    found.banding.bandedRangeId as number,
  );
  const list = found.sheet.bandedRanges ?? [];
  if (sheet === found.sheet) list[list.indexOf(found.banding)] = banding;
  else {
    remove(found.sheet, found.banding);
    place(sheet, banding);
  }
  return {};
}

export function deleteBanding(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteBandingRequest,
): Response {
  const { sheet, banding } = bandingById(spreadsheet, request.bandedRangeId);
  remove(sheet, banding);
  return {};
}
