/**
 * The Sheets API v4 routes (`/v4/spreadsheets…`). Each handler authenticates with the scopes
 * Google accepts for the method, checks the caller may see (404 otherwise, as Google answers)
 * and, for writes, change the spreadsheet, then works on the in-memory model.
 */
import Router from '@koa/router';
import type { sheets_v4 } from 'googleapis';
import type { Context } from 'koa';
import {
  type AccessMode,
  type Caller,
  GOOGLE_SCOPES,
  type SheetsRouterDeps,
  SPREADSHEET_MIME_TYPE,
} from '../contracts.ts';
import { googleErrors } from '../google-error.ts';
import { readJsonBody } from '../http/request-body.ts';
import { formatRange, resolveRange } from './a1-notation.ts';
import { applyBatchUpdate } from './batch-update.ts';
import { dataFilterRanges } from './data-filters.ts';
import { parseFieldMask, selectFields } from './field-mask.ts';
import type { SpreadsheetModel } from './model.ts';
import { copySheetTo } from './sheet-copy.ts';
import { spreadsheetContentsFromResource } from './spreadsheet-input.ts';
import { spreadsheetResource } from './spreadsheet-resource.ts';
import type { SpreadsheetStore } from './spreadsheet-store.ts';
import {
  appendValueRange,
  clearValueRange,
  type MajorDimension,
  type ReadOptions,
  readValueRange,
  writeValueRange,
} from './values-api.ts';

export interface SheetsRoutesDeps extends Omit<SheetsRouterDeps, 'publicUrl'> {
  spreadsheets: SpreadsheetStore;
  /** The origin `spreadsheetUrl` points at; Google's (`https://docs.google.com`) when unset. */
  publicUrl?: string;
}

export const SHEETS_READ_SCOPES = [
  GOOGLE_SCOPES.spreadsheets,
  GOOGLE_SCOPES.spreadsheetsReadonly,
  GOOGLE_SCOPES.drive,
  GOOGLE_SCOPES.driveReadonly,
  GOOGLE_SCOPES.driveFile,
] as const;
export const SHEETS_WRITE_SCOPES = [
  GOOGLE_SCOPES.spreadsheets,
  GOOGLE_SCOPES.drive,
  GOOGLE_SCOPES.driveFile,
] as const;

const ID = '([^/:]+)';
const RANGE = '(.+?)';

export function createSheetsRouter(deps: SheetsRoutesDeps): Router {
  const router = new Router();

  const open = (
    ctx: Context,
    id: string,
    mode: AccessMode,
  ): { caller: Caller; spreadsheet: SpreadsheetModel } => {
    const caller = deps.access.authenticate(ctx, mode === 'read' ? SHEETS_READ_SCOPES : SHEETS_WRITE_SCOPES);
    const file = deps.files.get(id);
    const spreadsheet = deps.spreadsheets.get(id);
    if (
      !file ||
      !spreadsheet ||
      file.mimeType !== SPREADSHEET_MIME_TYPE ||
      !deps.access.canAccess(caller, file, 'read')
    ) {
      throw googleErrors.notFound();
    }
    if (mode === 'write' && !deps.access.canAccess(caller, file, 'write'))
      throw googleErrors.permissionDenied();
    return { caller, spreadsheet };
  };

  const written = (spreadsheet: SpreadsheetModel) => deps.files.touch(spreadsheet.spreadsheetId);

  const resourceOptions = (ctx: Context) => ({
    ranges: queryList(ctx, 'ranges'),
    includeGridData:
      queryBoolean(ctx, 'includeGridData') || /\bdata\b/.test(queryString(ctx, 'fields') ?? ''),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
  });

  router.post(/^\/v4\/spreadsheets\/?$/, async (ctx) => {
    const caller = deps.access.authenticate(ctx, SHEETS_WRITE_SCOPES);
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$Spreadsheet;
    const contents = spreadsheetContentsFromResource(body);
    const file = deps.files.create(
      { name: contents.title, mimeType: SPREADSHEET_MIME_TYPE, ownerEmail: caller.account.email },
      caller.clientId,
    );
    const spreadsheet = deps.spreadsheets.create(file.id, contents);
    respond(ctx, spreadsheetResource(spreadsheet, resourceOptions(ctx)));
  });

  router.get(new RegExp(`^/v4/spreadsheets/${ID}$`), (ctx) => {
    const [id] = pathParts(ctx, new RegExp(`^/v4/spreadsheets/${ID}$`));
    const { spreadsheet } = open(ctx, id, 'read');
    respond(ctx, spreadsheetResource(spreadsheet, resourceOptions(ctx)));
  });

  // spreadsheets.getByDataFilter: a get whose ranges are data filters (data-filters.ts). Google's
  // reference lists only the read-write scopes for it (spreadsheets, drive, drive.file), while
  // reading the file is enough to be answered.
  const GET_BY_DATA_FILTER = new RegExp(`^/v4/spreadsheets/${ID}:getByDataFilter$`);
  router.post(GET_BY_DATA_FILTER, async (ctx) => {
    const [id] = pathParts(ctx, GET_BY_DATA_FILTER);
    deps.access.authenticate(ctx, SHEETS_WRITE_SCOPES);
    const { spreadsheet } = open(ctx, id, 'read');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$GetSpreadsheetByDataFilterRequest;
    const fields = queryString(ctx, 'fields');
    respond(
      ctx,
      spreadsheetResource(spreadsheet, {
        ranges: dataFilterRanges(spreadsheet, body.dataFilters ?? []),
        // "If a field mask is set, the includeGridData parameter is ignored."
        includeGridData: fields ? /\bdata\b/.test(fields) : body.includeGridData === true,
        ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      }),
    );
  });

  const BATCH_UPDATE = new RegExp(`^/v4/spreadsheets/${ID}:batchUpdate$`);
  router.post(BATCH_UPDATE, async (ctx) => {
    const [id] = pathParts(ctx, BATCH_UPDATE);
    const { spreadsheet } = open(ctx, id, 'write');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$BatchUpdateSpreadsheetRequest;
    const { updated, replies } = applyBatchUpdate(spreadsheet, body.requests ?? []);
    deps.spreadsheets.replace(updated);
    written(updated);
    const response: sheets_v4.Schema$BatchUpdateSpreadsheetResponse = { spreadsheetId: id, replies };
    if (body.includeSpreadsheetInResponse) {
      response.updatedSpreadsheet = spreadsheetResource(updated, {
        ranges: body.responseRanges ?? [],
        includeGridData: body.responseIncludeGridData === true,
        ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      });
    }
    respond(ctx, response);
  });

  const COPY_TO = new RegExp(`^/v4/spreadsheets/${ID}/sheets/${ID}:copyTo$`);
  router.post(COPY_TO, async (ctx) => {
    const [id, sheetId] = pathParts(ctx, COPY_TO);
    const { spreadsheet } = open(ctx, id, 'read');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$CopySheetToAnotherSpreadsheetRequest;
    if (!body.destinationSpreadsheetId)
      throw googleErrors.badRequest('destinationSpreadsheetId is required.');
    const { spreadsheet: destination } = open(ctx, body.destinationSpreadsheetId, 'write');
    const { updated, properties } = copySheetTo(spreadsheet, Number(sheetId), destination);
    deps.spreadsheets.replace(updated);
    written(updated);
    respond(ctx, properties);
  });

  const BATCH_GET = new RegExp(`^/v4/spreadsheets/${ID}/values:batchGet$`);
  router.get(BATCH_GET, (ctx) => {
    const [id] = pathParts(ctx, BATCH_GET);
    const { spreadsheet } = open(ctx, id, 'read');
    const options = readOptions(ctx);
    const response: sheets_v4.Schema$BatchGetValuesResponse = { spreadsheetId: id };
    const ranges = queryList(ctx, 'ranges');
    if (ranges.length > 0)
      response.valueRanges = ranges.map((range) => readValueRange(spreadsheet, range, options));
    respond(ctx, response);
  });

  const BATCH_UPDATE_VALUES = new RegExp(`^/v4/spreadsheets/${ID}/values:batchUpdate$`);
  router.post(BATCH_UPDATE_VALUES, async (ctx) => {
    const [id] = pathParts(ctx, BATCH_UPDATE_VALUES);
    const { spreadsheet } = open(ctx, id, 'write');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$BatchUpdateValuesRequest;
    const valueInputOption = inputOption(body.valueInputOption);
    const copy = structuredClone(spreadsheet);
    const responses: sheets_v4.Schema$UpdateValuesResponse[] = [];
    const sheetsTouched = new Set<string>();
    for (const data of body.data ?? []) {
      if (!data.range) throw googleErrors.badRequest('Invalid data[].range: a range is required.');
      const result = writeValueRange(copy, data.range, data.values, {
        valueInputOption,
        majorDimension: majorDimension(data.majorDimension ?? undefined, 'data.major_dimension'),
      });
      sheetsTouched.add(result.updatedRange.replace(/![^!]*$/, ''));
      responses.push(
        withUpdatedData(
          copy,
          result,
          body.includeValuesInResponse,
          body.responseValueRenderOption,
          body.responseDateTimeRenderOption,
        ),
      );
    }
    deps.spreadsheets.replace(copy);
    written(copy);
    const total = (key: 'updatedRows' | 'updatedColumns' | 'updatedCells') =>
      responses.reduce((sum, response) => sum + (response[key] ?? 0), 0);
    const response: sheets_v4.Schema$BatchUpdateValuesResponse = { spreadsheetId: id };
    if (responses.length > 0) {
      Object.assign(response, {
        totalUpdatedRows: total('updatedRows'),
        totalUpdatedColumns: total('updatedColumns'),
        totalUpdatedCells: total('updatedCells'),
        totalUpdatedSheets: sheetsTouched.size,
        responses,
      });
    }
    respond(ctx, response);
  });

  const BATCH_CLEAR = new RegExp(`^/v4/spreadsheets/${ID}/values:batchClear$`);
  router.post(BATCH_CLEAR, async (ctx) => {
    const [id] = pathParts(ctx, BATCH_CLEAR);
    const { spreadsheet } = open(ctx, id, 'write');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$BatchClearValuesRequest;
    const copy = structuredClone(spreadsheet);
    const clearedRanges = (body.ranges ?? []).map((range) => clearValueRange(copy, range));
    deps.spreadsheets.replace(copy);
    written(copy);
    respond(ctx, { spreadsheetId: id, clearedRanges } satisfies sheets_v4.Schema$BatchClearValuesResponse);
  });

  const APPEND = new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}:append$`);
  router.post(APPEND, async (ctx) => {
    const [id, range] = pathParts(ctx, APPEND);
    const { spreadsheet } = open(ctx, id, 'write');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$ValueRange;
    const insertDataOption = queryEnum(
      ctx,
      'insertDataOption',
      ['OVERWRITE', 'INSERT_ROWS'],
      'OVERWRITE',
      'insert_data_option',
    );
    const result = appendValueRange(spreadsheet, range, body.values, {
      valueInputOption: inputOption(queryString(ctx, 'valueInputOption')),
      majorDimension: majorDimension(body.majorDimension ?? undefined, 'data.major_dimension'),
      insertDataOption,
    });
    written(spreadsheet);
    const response: sheets_v4.Schema$AppendValuesResponse = {
      spreadsheetId: id,
      ...(result.tableRange ? { tableRange: result.tableRange } : {}),
      updates: withUpdatedData(
        spreadsheet,
        result.updates,
        queryBoolean(ctx, 'includeValuesInResponse'),
        queryString(ctx, 'responseValueRenderOption'),
        queryString(ctx, 'responseDateTimeRenderOption'),
      ),
    };
    respond(ctx, response);
  });

  const CLEAR = new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}:clear$`);
  router.post(CLEAR, async (ctx) => {
    const [id, range] = pathParts(ctx, CLEAR);
    const { spreadsheet } = open(ctx, id, 'write');
    await jsonBody(ctx);
    const clearedRange = clearValueRange(spreadsheet, range);
    written(spreadsheet);
    respond(ctx, { spreadsheetId: id, clearedRange } satisfies sheets_v4.Schema$ClearValuesResponse);
  });

  const VALUES = new RegExp(`^/v4/spreadsheets/${ID}/values/${RANGE}$`);
  router.get(VALUES, (ctx) => {
    const [id, range] = pathParts(ctx, VALUES);
    const { spreadsheet } = open(ctx, id, 'read');
    respond(ctx, readValueRange(spreadsheet, range, readOptions(ctx)));
  });

  router.put(VALUES, async (ctx) => {
    const [id, range] = pathParts(ctx, VALUES);
    const { spreadsheet } = open(ctx, id, 'write');
    const body = ((await jsonBody(ctx)) ?? {}) as sheets_v4.Schema$ValueRange;
    const valueInputOption = inputOption(queryString(ctx, 'valueInputOption'));
    if (body.range) checkBodyRange(spreadsheet, range, body.range);
    const result = writeValueRange(spreadsheet, range, body.values, {
      valueInputOption,
      majorDimension: majorDimension(body.majorDimension ?? undefined, 'data.major_dimension'),
    });
    written(spreadsheet);
    respond(
      ctx,
      withUpdatedData(
        spreadsheet,
        result,
        queryBoolean(ctx, 'includeValuesInResponse'),
        queryString(ctx, 'responseValueRenderOption'),
        queryString(ctx, 'responseDateTimeRenderOption'),
      ),
    );
  });

  return router;
}

/** The decoded capture groups of a route's pattern, matched against the raw path. */
function pathParts(ctx: Context, pattern: RegExp): [string, string] {
  const match = pattern.exec(ctx.path);
  if (!match) throw googleErrors.notFound();
  const decode = (part: string | undefined) => {
    try {
      return decodeURIComponent(part ?? '');
    } catch {
      throw googleErrors.badRequest(`Unable to parse range: ${part}`);
    }
  };
  return [decode(match[1]), decode(match[2])];
}

async function jsonBody(ctx: Context): Promise<unknown> {
  try {
    return await readJsonBody(ctx);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw googleErrors.badRequest(`Invalid JSON payload received. ${error.message}`);
    throw error;
  }
}

/** Sends a response, honouring Google's `fields` system parameter. */
function respond(ctx: Context, body: object): void {
  const fields = queryString(ctx, 'fields');
  ctx.status = 200;
  ctx.body = fields ? selectFields(body, parseFieldMask(fields)) : body;
}

function queryString(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[0] : value;
}

function queryList(ctx: Context, name: string): string[] {
  const value = ctx.query[name] ?? ctx.query[`${name}[]`];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function queryBoolean(ctx: Context, name: string): boolean {
  return queryString(ctx, name) === 'true';
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function checkEnum<T extends string>(
  value: string | undefined | null,
  allowed: readonly T[],
  fallback: T,
  field: string,
): T {
  if (value === undefined || value === null || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw googleErrors.badRequest(`Invalid value at '${field}' (TYPE_ENUM), "${value}"`);
}

function queryEnum<T extends string>(
  ctx: Context,
  name: string,
  allowed: readonly T[],
  fallback: T,
  field = snakeCase(name),
): T {
  return checkEnum(queryString(ctx, name), allowed, fallback, field);
}

function majorDimension(value: string | undefined, field: string): MajorDimension {
  const dimension = checkEnum(value, ['ROWS', 'COLUMNS', 'DIMENSION_UNSPECIFIED'] as const, 'ROWS', field);
  return dimension === 'DIMENSION_UNSPECIFIED' ? 'ROWS' : dimension;
}

/** Google requires valueInputOption on every write and names the missing value this way. */
function inputOption(value: string | undefined | null): 'RAW' | 'USER_ENTERED' {
  const option = checkEnum(
    value,
    ['RAW', 'USER_ENTERED', 'INPUT_VALUE_OPTION_UNSPECIFIED'] as const,
    'INPUT_VALUE_OPTION_UNSPECIFIED',
    'value_input_option',
  );
  if (option === 'INPUT_VALUE_OPTION_UNSPECIFIED')
    throw googleErrors.badRequest('Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED');
  return option;
}

function readOptions(ctx: Context): ReadOptions {
  return renderOptions(
    queryString(ctx, 'valueRenderOption'),
    queryString(ctx, 'dateTimeRenderOption'),
    majorDimension(queryString(ctx, 'majorDimension'), 'major_dimension'),
  );
}

function renderOptions(
  valueRender: string | undefined | null,
  dateTimeRender: string | undefined | null,
  dimension: MajorDimension = 'ROWS',
): ReadOptions {
  return {
    valueRenderOption: checkEnum(
      valueRender,
      ['FORMATTED_VALUE', 'UNFORMATTED_VALUE', 'FORMULA'] as const,
      'FORMATTED_VALUE',
      'value_render_option',
    ),
    dateTimeRenderOption: checkEnum(
      dateTimeRender,
      ['SERIAL_NUMBER', 'FORMATTED_STRING'] as const,
      'SERIAL_NUMBER',
      'date_time_render_option',
    ),
    majorDimension: dimension,
  };
}

function withUpdatedData(
  spreadsheet: SpreadsheetModel,
  result: ReturnType<typeof writeValueRange>,
  include: boolean | null | undefined,
  valueRender: string | null | undefined,
  dateTimeRender: string | null | undefined,
): sheets_v4.Schema$UpdateValuesResponse {
  if (!include) return result;
  return {
    ...result,
    updatedData: readValueRange(spreadsheet, result.updatedRange, renderOptions(valueRender, dateTimeRender)),
  };
}

function checkBodyRange(spreadsheet: SpreadsheetModel, urlRange: string, bodyRange: string): void {
  const normalized = (text: string) => {
    const { sheet, bounds } = resolveRange(spreadsheet, text);
    return formatRange(sheet.properties.title, bounds);
  };
  if (normalized(urlRange) !== normalized(bodyRange)) {
    throw googleErrors.badRequest(
      `Requested range [${urlRange}] does not match the range in the request body [${bodyRange}].`,
    );
  }
}
