import type { ToolsetName } from '@sheetgate/proto';
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import type { AuthInfo } from '../../../auth/auth-info.ts';
import { ToolError } from '../../../errors/tool-error.ts';
import { deletedTabSummary } from '../../../journal/change-summaries.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { captureSheet } from '../../../journal/sheet-image.ts';
import { footprintOf, isUnsupported, UNDOABLE_ELSEWHERE } from '../../../journal/state/footprint.ts';
import { topLevelFields } from '../../../journal/state/footprint-builder.ts';
import { lossDescriptions } from '../../guards/loss-descriptions.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { gridBounds, splitRange } from '../../kit/a1.ts';
import { CHANGE } from '../../kit/annotations.ts';
import { checkBatchSheetIds } from '../../kit/batch-sheet-ids.ts';
import {
  a1Range,
  destructiveWriteOutput,
  dryRun,
  dryRunOutput,
  sheetId,
  spreadsheetId,
  wouldLoseOutput,
} from '../../kit/common-schemas.ts';
import { firstVisibleTab } from '../../kit/first-visible-tab.ts';
import { journalDeletion } from '../../kit/journal-deletion.ts';
import { checkWithinGrid } from '../../kit/range-refusals.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { checkTitleFree, readTabNames, withSheetId } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { describeToolset, enablesToolset, notEnabledClause } from '../../toolsets.ts';

/**
 * The request kinds batch_update passes through (anything else is refused before Google sees it),
 * each with the toolset whose tools make that change (docs/design.md §11.5, TOOL_TOOLSETS): a batch
 * holds a kind only when the credential enables its set, so batch_update (Structure) is no way
 * around Rules. Cells written with a `fields` mask that covers data validation need Rules too
 * (`batchRequestToolsets`). Each kind is one undo can take back from the requests
 * (journal/state/footprint.ts); those that change the grid's shape have their own tools
 * (footprint.ts UNDOABLE_ELSEWHERE).
 */
export const BATCH_REQUEST_TOOLSETS = {
  // Tabs, the grid and its cells, formats and merges: the structure tools' work.
  addSheet: 'structure',
  updateSheetProperties: 'structure',
  duplicateSheet: 'structure',
  repeatCell: 'structure',
  updateCells: 'structure',
  findReplace: 'structure',
  mergeCells: 'structure',
  unmergeCells: 'structure',
  autoResizeDimensions: 'structure',
  updateDimensionProperties: 'structure',
  sortRange: 'structure',
  updateBorders: 'structure',
  deleteDuplicates: 'structure',
  trimWhitespace: 'structure',
  // Filters, filter views and tables: the filter and table tools' (Rules).
  setBasicFilter: 'rules',
  clearBasicFilter: 'rules',
  addFilterView: 'rules',
  updateFilterView: 'rules',
  deleteFilterView: 'rules',
  duplicateFilterView: 'rules',
  addTable: 'rules',
  updateTable: 'rules',
  deleteTable: 'rules',
} as const satisfies Record<string, ToolsetName>;

export type BatchRequestKind = keyof typeof BATCH_REQUEST_TOOLSETS;

export const ALLOWED_BATCH_REQUESTS = Object.keys(BATCH_REQUEST_TOOLSETS) as BatchRequestKind[];

/** The kinds whose `fields` mask says which parts of each cell they write. */
const CELL_WRITES: ReadonlySet<string> = new Set(['repeatCell', 'updateCells']);

/**
 * The sets one allowed request needs, each with what needs it: its kind's set, and Rules when it
 * writes cells' data validation (a `fields` mask naming `dataValidation`, or `*`, which writes or
 * clears every part of a cell), as set_data_validation does.
 */
export function batchRequestToolsets(
  request: Record<string, unknown>,
): Array<{ set: ToolsetName; what: string }> {
  const kind = Object.keys(request)[0] as BatchRequestKind;
  const needs: Array<{ set: ToolsetName; what: string }> = [
    { set: BATCH_REQUEST_TOOLSETS[kind], what: kind },
  ];
  const fields = (request[kind] as { fields?: unknown } | undefined)?.fields;
  if (CELL_WRITES.has(kind) && typeof fields === 'string' && topLevelFields(fields).some(writesValidation))
    needs.push({ set: 'rules', what: `${kind} writing data validation (fields ${JSON.stringify(fields)})` });
  if (kind === 'updateCells' && typeof fields === 'string' && writesPivotTables(request.updateCells, fields))
    needs.push({
      set: 'charts',
      what: `updateCells writing pivot tables (fields ${JSON.stringify(fields)})`,
    });
  return needs;
}

/** A pivot table is its anchor cell's `pivotTable`: named in the mask, or given a cell under `*`. */
function writesPivotTables(request: unknown, fields: string): boolean {
  const paths = topLevelFields(fields);
  if (paths.some((path) => /^pivotTable(?![A-Za-z0-9_])/.test(path))) return true;
  const rows = (request as sheets_v4.Schema$UpdateCellsRequest | undefined)?.rows ?? [];
  return paths.includes('*') && rows.some((row) => (row.values ?? []).some((cell) => cell?.pivotTable));
}

const writesValidation = (path: string) => path === '*' || /^dataValidation(?![A-Za-z0-9_])/.test(path);

const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'a colour like #1a73e8')
  .transform((hex) => ({
    red: Number.parseInt(hex.slice(1, 3), 16) / 255,
    green: Number.parseInt(hex.slice(3, 5), 16) / 255,
    blue: Number.parseInt(hex.slice(5, 7), 16) / 255,
  }));

export function sheetTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;

  /** Refuses, before any Google call, a batch holding a request of a set the credential lacks. */
  function refuseOutsideToolsets(requests: Array<Record<string, unknown>>, auth: AuthInfo): void {
    for (const [index, request] of requests.entries())
      for (const { set, what } of batchRequestToolsets(request))
        if (!enablesToolset(auth, set))
          throw new ToolError(
            `Nothing was changed: request ${index} (${what}) is in the toolset ${describeToolset(set)}, ${notEnabledClause(auth.credential, deps.dashboardUrl)}.`,
          );
  }
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const losses = lossDescriptions(deps);

  /** Refuses, before any Google call, a batch whose change undo could not take back (and why). */
  function refuseWithoutUndo(requests: sheets_v4.Schema$Request[]): void {
    const footprint = footprintOf(requests);
    if (isUnsupported(footprint))
      throw new ToolError(`Nothing was changed: ${footprint.unsupported}, so the batch could not be undone.`);
  }

  async function tabForTitle(userId: string, signal: AbortSignal, id: string, title: string | undefined) {
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.get(
        { spreadsheetId: id, fields: 'sheets.properties(sheetId,title,hidden,gridProperties)' },
        request,
      ),
    );
    const tabs = (data.sheets ?? []).map((sheet) => sheet.properties ?? {});
    const tab = title === undefined ? firstVisibleTab(tabs) : tabs.find((each) => each.title === title);
    if (!tab)
      throw new ToolError(`there is no tab named ${JSON.stringify(title)}; get_spreadsheet lists the tabs`);
    return tab;
  }

  return [
    defineTool({
      name: 'add_sheet',
      toolset: 'structure',
      title: 'Add a tab',
      description: 'Adds a tab.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        title: z.string().min(1).max(100),
        index: z.number().int().min(0).optional().describe('Last by default.'),
        rowCount: z.number().int().min(1).max(100_000).optional(),
        columnCount: z.number().int().min(1).max(18_278).optional(),
        dryRun,
      }),
      // sheetId is null in a dry run: Google assigns it when the tab is made.
      outputSchema: z.object({ sheetId: z.number().nullable(), title: z.string(), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        if (input.dryRun)
          checkTitleFree(await readTabNames(deps, { auth, signal }, input.spreadsheetId), input.title);
        if (input.dryRun)
          return {
            structuredContent: { sheetId: null, title: input.title, dryRun: true },
            text: `Dry run: would add the tab ${input.title}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            addSheet: {
              properties: {
                title: input.title,
                ...(input.index === undefined ? {} : { index: input.index }),
                ...(input.rowCount || input.columnCount
                  ? {
                      gridProperties: {
                        rowCount: input.rowCount ?? 1000,
                        columnCount: input.columnCount ?? 26,
                      },
                    }
                  : {}),
              },
            },
          },
        ]);
        const properties = reply.replies?.[0]?.addSheet?.properties;
        const result = { sheetId: properties?.sheetId ?? 0, title: properties?.title ?? input.title };
        return { structuredContent: result, text: `Added tab ${result.title} (sheetId ${result.sheetId}).` };
      },
    }),

    defineTool({
      name: 'rename_sheet',
      toolset: 'structure',
      title: 'Rename a tab',
      description: 'Renames a tab.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({ spreadsheetId, sheetId, title: z.string().min(1).max(100), dryRun }),
      outputSchema: z.object({ sheetId: z.number(), title: z.string(), dryRun: dryRunOutput }),
      async run(given, context) {
        const { auth, signal } = context;
        const input = await withSheetId(deps, context, given);
        if (input.dryRun)
          checkTitleFree(await readTabNames(deps, context, input.spreadsheetId), input.title, input.sheetId);
        if (input.dryRun)
          return {
            structuredContent: { sheetId: input.sheetId, title: input.title, dryRun: true },
            text: `Dry run: would rename the tab with sheetId ${input.sheetId} to ${input.title}. Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateSheetProperties: {
              properties: { sheetId: input.sheetId, title: input.title },
              fields: 'title',
            },
          },
        ]);
        return {
          structuredContent: { sheetId: input.sheetId, title: input.title },
          text: `Renamed the tab to ${input.title}.`,
        };
      },
    }),

    defineTool({
      name: 'delete_sheet',
      toolset: 'structure',
      title: 'Delete a tab',
      description: 'Deletes a tab and everything on it.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, sheetId, dryRun }),
      outputSchema: z.object({
        deletedSheetId: z.number(),
        ...destructiveWriteOutput,
      }),
      async run(given, context) {
        const { auth, signal } = context;
        const input = await withSheetId(deps, context, given);
        if (input.dryRun) {
          const wouldLose = await losses.sheetDeletion(input, context);
          return {
            structuredContent: { deletedSheetId: input.sheetId, dryRun: true, wouldLose },
            text: `Dry run, nothing was changed. ${wouldLose}`,
          };
        }
        // The change journal keeps enough of the tab to recreate it (two reads first).
        const captured = deps.journal
          ? await captureSheet(deps, auth, signal, input.spreadsheetId, input.sheetId)
          : undefined;
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { deleteSheet: { sheetId: input.sheetId } },
        ]);
        const changeId = journalDeletion(
          deps.journal,
          auth,
          captured,
          ({ title, cells, rows, image }) => ({
            tool: 'delete_sheet',
            spreadsheetId: input.spreadsheetId,
            ranges: [title],
            cells,
            rows,
            summary: deletedTabSummary(title, rows, image?.rows),
          }),
          (sheet) => ({ v: 1, kind: 'sheet', sheet }),
        );
        return {
          structuredContent: { deletedSheetId: input.sheetId, ...(changeId ? { changeId } : {}) },
          text: `Deleted the tab with sheetId ${input.sheetId}.${changeNote(changeId)}`,
        };
      },
      describeLoss: (input, context) => losses.sheetDeletion(input, context),
    }),

    defineTool({
      name: 'duplicate_sheet',
      toolset: 'structure',
      title: 'Duplicate a tab',
      description: 'Copies a tab within its spreadsheet.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        newTitle: z.string().min(1).max(100).optional(),
        insertIndex: z.number().int().min(0).optional(),
        dryRun,
      }),
      // sheetId (and a title Google picks) are null in a dry run.
      outputSchema: z.object({
        sheetId: z.number().nullable(),
        title: z.string().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(given, context) {
        const { auth, signal } = context;
        const input = await withSheetId(deps, context, given);
        if (input.dryRun && input.newTitle)
          checkTitleFree(await readTabNames(deps, context, input.spreadsheetId), input.newTitle);
        if (input.dryRun)
          return {
            structuredContent: { sheetId: null, title: input.newTitle ?? null, dryRun: true },
            text: `Dry run: would copy the tab with sheetId ${input.sheetId}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            duplicateSheet: {
              sourceSheetId: input.sheetId,
              ...(input.newTitle ? { newSheetName: input.newTitle } : {}),
              ...(input.insertIndex === undefined ? {} : { insertSheetIndex: input.insertIndex }),
            },
          },
        ]);
        const properties = reply.replies?.[0]?.duplicateSheet?.properties;
        const result = {
          sheetId: properties?.sheetId ?? 0,
          title: properties?.title ?? input.newTitle ?? '',
        };
        return { structuredContent: result, text: `Created ${result.title} (sheetId ${result.sheetId}).` };
      },
    }),

    defineTool({
      name: 'format_range',
      toolset: 'structure',
      title: 'Format a range',
      description: 'Formats every cell of a range.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        bold: z.boolean().optional(),
        italic: z.boolean().optional(),
        fontSize: z.number().int().min(6).max(96).optional(),
        textColor: hexColor.optional(),
        backgroundColor: hexColor.optional(),
        horizontalAlignment: z.enum(['LEFT', 'CENTER', 'RIGHT']).optional(),
        wrapStrategy: z.enum(['OVERFLOW_CELL', 'CLIP', 'WRAP']).optional(),
        numberFormat: z
          .object({
            type: z.enum([
              'TEXT',
              'NUMBER',
              'PERCENT',
              'CURRENCY',
              'DATE',
              'TIME',
              'DATE_TIME',
              'SCIENTIFIC',
            ]),
            pattern: z.string().max(100).optional(),
          })
          .optional(),
        dryRun,
      }),
      outputSchema: z.object({ range: z.string(), fields: z.string(), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const { sheetTitle, cells } = splitRange(input.range);
        const bounds = gridBounds(cells);
        if (!bounds)
          throw new ToolError(`cannot read the cells of ${JSON.stringify(input.range)} as A1 notation`);
        const { format, fields } = cellFormatFor(input);
        if (fields.length === 0)
          throw new ToolError('name at least one format to set (bold, backgroundColor, numberFormat, …)');
        // A second request is needed: batchUpdate names a tab by sheetId, which only the tabs' read gives.
        const tab = await tabForTitle(auth.userId, signal, input.spreadsheetId, sheetTitle);
        const id = tab.sheetId ?? 0;
        const grid = tab.gridProperties;
        checkWithinGrid(
          { title: tab.title ?? '', rows: grid?.rowCount ?? 0, columns: grid?.columnCount ?? 0 },
          bounds,
          'end',
        );
        if (input.dryRun)
          return {
            structuredContent: { range: input.range, fields: fields.join(','), dryRun: true },
            text: `Dry run: would format ${input.range} (${fields.map((field) => field.split('.').at(-1)).join(', ')}). Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            repeatCell: {
              range: { sheetId: id, ...bounds },
              cell: { userEnteredFormat: format },
              fields: fields.join(','),
            },
          },
        ]);
        return {
          structuredContent: { range: input.range, fields: fields.join(',') },
          text: `Formatted ${input.range} (${fields.map((field) => field.split('.').at(-1)).join(', ')}).`,
        };
      },
    }),

    defineTool({
      name: 'batch_update',
      toolset: 'structure',
      title: 'Apply spreadsheet changes',
      description: `Applies batchUpdate requests as one undoable change, each one of: ${ALLOWED_BATCH_REQUESTS.join(', ')} (filters and tables need the rules toolset).`,
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({
        spreadsheetId,
        requests: z
          .array(z.record(z.string(), z.looseObject({})))
          .min(1)
          .max(100)
          .superRefine((requests, context) => {
            for (const [index, request] of requests.entries()) {
              const keys = Object.keys(request);
              const elsewhere = UNDOABLE_ELSEWHERE[keys[0]!];
              if (keys.length === 1 && elsewhere)
                context.addIssue({
                  code: 'custom',
                  message: `request ${index} (${keys[0]}) changes the grid's shape, which a batch cannot undo: use ${elsewhere}, whose undo keeps what it changes`,
                });
              else if (keys.length !== 1 || !(ALLOWED_BATCH_REQUESTS as readonly string[]).includes(keys[0]!))
                context.addIssue({
                  code: 'custom',
                  message: `each request must have exactly one key among: ${ALLOWED_BATCH_REQUESTS.join(', ')}`,
                });
            }
          }),
        dryRun,
      }),
      outputSchema: z.object({
        replies: z.array(z.looseObject({})),
        dryRun: dryRunOutput,
        wouldLose: wouldLoseOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        refuseOutsideToolsets(input.requests, auth);
        refuseWithoutUndo(input.requests as sheets_v4.Schema$Request[]);
        const count = input.requests.length;
        if (input.dryRun) {
          checkBatchSheetIds(input.requests, await readTabNames(deps, context, input.spreadsheetId));
          const wouldLose = await losses.batch(
            { spreadsheetId: input.spreadsheetId, requests: input.requests as sheets_v4.Schema$Request[] },
            context,
          );
          return {
            structuredContent: { replies: [], dryRun: true, wouldLose },
            text: `Dry run, nothing was changed: ${amount(count, 'request')} checked. ${wouldLose ?? 'It would destroy nothing.'} The batch can be undone as one change (undo_change).`,
          };
        }
        context.progress(0, 1, `Applying ${amount(count, 'request')}`);
        const reply = await batchUpdate(
          auth.userId,
          signal,
          input.spreadsheetId,
          input.requests as sheets_v4.Schema$Request[],
        );
        context.progress(1, 1, 'Applied');
        const replies = reply.replies ?? [];
        return { structuredContent: { replies }, text: `Applied ${count} requests.` };
      },
      describeLoss: (input, context) => {
        // Nobody is asked to confirm a batch that would be refused.
        refuseOutsideToolsets(input.requests, context.auth);
        refuseWithoutUndo(input.requests as sheets_v4.Schema$Request[]);
        return losses.batch(
          { spreadsheetId: input.spreadsheetId, requests: input.requests as sheets_v4.Schema$Request[] },
          context,
        );
      },
    }),
  ];
}

/** The CellFormat and the `fields` mask for the formats a format_range call names. */
function cellFormatFor(input: {
  bold?: boolean | undefined;
  italic?: boolean | undefined;
  fontSize?: number | undefined;
  textColor?: sheets_v4.Schema$Color | undefined;
  backgroundColor?: sheets_v4.Schema$Color | undefined;
  horizontalAlignment?: string | undefined;
  wrapStrategy?: string | undefined;
  numberFormat?: sheets_v4.Schema$NumberFormat | undefined;
}) {
  const textFormat: sheets_v4.Schema$TextFormat = {};
  const format: sheets_v4.Schema$CellFormat = {};
  const fields: string[] = [];
  const text = (key: keyof sheets_v4.Schema$TextFormat, value: unknown) => {
    if (value === undefined) return;
    (textFormat as Record<string, unknown>)[key] = value;
    fields.push(`userEnteredFormat.textFormat.${key}`);
  };
  const cell = (key: keyof sheets_v4.Schema$CellFormat, value: unknown) => {
    if (value === undefined) return;
    (format as Record<string, unknown>)[key] = value;
    fields.push(`userEnteredFormat.${key}`);
  };
  text('bold', input.bold);
  text('italic', input.italic);
  text('fontSize', input.fontSize);
  text('foregroundColor', input.textColor);
  if (Object.keys(textFormat).length > 0) format.textFormat = textFormat;
  cell('backgroundColor', input.backgroundColor);
  cell('horizontalAlignment', input.horizontalAlignment);
  cell('wrapStrategy', input.wrapStrategy);
  cell('numberFormat', input.numberFormat);
  return { format, fields };
}
