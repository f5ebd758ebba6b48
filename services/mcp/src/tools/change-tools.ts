import { ChangeCredentialKind, kindOfCallError } from '@sheetgate/proto';
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { ChangeJournal, ListedChange } from '../journal/change-journal.ts';
import {
  areaRange,
  bounded,
  type ChangePayload,
  restoredValue,
  type SheetImage,
  sameCell,
  type ValueArea,
  valueArea,
} from '../journal/change-payloads.ts';
import { type NoteArea, noteAreaRange, readNotes, restoreNotesRequest } from '../journal/note-images.ts';
import { changeNote, recordValueChange } from '../journal/record-change.ts';
import { type DimensionImage, SHEET_IMAGE_CELL_FIELDS } from '../journal/sheet-image.ts';
import { columnLetters, rangeOnSheet } from './a1.ts';
import { dryRun, dryRunOutput, spreadsheetId } from './common-schemas.ts';
import { amount } from './loss-phrases.ts';
import { spreadsheetBatchUpdate } from './spreadsheet-batch-update.ts';
import { defineTool, type ToolDefinition, ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** A refusal names at most this many cells changed since, then how many more. */
const NAMED_CELLS = 20;

const changeId = z.string().max(100).describe("A change id from a write tool's answer or list_changes.");

const CREDENTIAL_KIND_NAMES: Record<string, 'api_key' | 'app' | 'dashboard' | 'unknown'> = {
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY]: 'api_key',
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP]: 'app',
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_DASHBOARD]: 'dashboard',
};

const listedChange = z.object({
  changeId: z.string(),
  at: z.string().describe('When, RFC 3339.'),
  credential: z.object({
    kind: z.enum(['api_key', 'app', 'dashboard', 'unknown']),
    id: z.string(),
    name: z.string(),
  }),
  tool: z.string(),
  spreadsheetId: z.string(),
  ranges: z.array(z.string()),
  cells: z.number(),
  rows: z.number(),
  undoable: z.boolean(),
  undoUnavailableReason: z.string().nullable(),
  undoesChangeId: z.string().nullable(),
  undoneAt: z.string().nullable(),
  undoneByChangeId: z.string().nullable(),
});

function shown(change: ListedChange): z.infer<typeof listedChange> {
  return {
    changeId: change.id,
    at: new Date(change.occurredAtMs).toISOString(),
    credential: {
      kind: CREDENTIAL_KIND_NAMES[change.credentialKind] ?? 'unknown',
      id: change.credentialId,
      name: change.credentialName,
    },
    tool: change.tool,
    spreadsheetId: change.spreadsheetId,
    ranges: change.ranges,
    cells: change.cells,
    rows: change.rows,
    undoable: change.undoable && !change.undoneAtMs,
    undoUnavailableReason: change.undoable ? null : change.undoUnavailableReason,
    undoesChangeId: change.undoesChangeId || null,
    undoneAt: change.undoneAtMs ? new Date(change.undoneAtMs).toISOString() : null,
    undoneByChangeId: change.undoneByChangeId || null,
  };
}

function off(): never {
  throw new ToolError(
    'The change journal is off on this Sheetgate server: there is nothing to list or undo.',
  );
}

const notFound = (id: string | undefined) =>
  new ToolError(
    id
      ? `Change ${id} was not found among your changes (list_changes lists them; changes are kept for a limited time).`
      : 'No change of this credential was found that can be undone (list_changes lists your changes).',
  );

/**
 * list_changes and undo_change (docs/design.md §11.8): the person's change journal, and undo of a
 * change whose cells still hold what it wrote (else refused, naming the cells changed since,
 * unless `force`). An undo is journaled too, so it can be undone in turn.
 */
export function changeTools(deps: ToolDeps): ToolDefinition[] {
  const { sheets, callGoogle, journal } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);

  async function undoValues(
    journal: ChangeJournal,
    auth: AuthInfo,
    signal: AbortSignal,
    change: ListedChange,
    payload: Extract<ChangePayload, { kind: 'values' }>,
    options: { force: boolean; dryRun: boolean },
  ) {
    const ranges = payload.areas.map(areaRange);
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.values.batchGet(
        { spreadsheetId: change.spreadsheetId, ranges, valueRenderOption: 'FORMULA' },
        request,
      ),
    );
    const current = payload.areas.map((_, index) => (data.valueRanges?.[index]?.values ?? []) as unknown[][]);
    const changedSince: string[] = [];
    for (const [index, area] of payload.areas.entries())
      for (const [r, row] of area.after.entries())
        for (const [c, expected] of row.entries()) {
          if (expected === null || sameCell(current[index]![r]?.[c], expected)) continue;
          changedSince.push(rangeOnSheet(area.sheet, `${columnLetters(area.left + c)}${area.top + r + 1}`));
        }
    refuseChanged(change, changedSince, options.force);
    const inserted = payload.insertedRows;
    if (options.dryRun) {
      return {
        restored: ranges,
        changedSince,
        text: inserted
          ? `Dry run: would delete the ${amount(inserted.end - inserted.start, 'row')} change ${change.id} appended (${ranges.join(', ')}). Nothing was changed.`
          : `Dry run: would restore ${ranges.join(', ')} as they were before change ${change.id}. Nothing was changed.`,
      };
    }
    if (inserted) {
      const { data: outline } = await callGoogle(auth.userId, signal, (request) =>
        sheets.spreadsheets.get(
          { spreadsheetId: change.spreadsheetId, fields: 'sheets.properties(sheetId,title)' },
          request,
        ),
      );
      const tab = outline.sheets?.find((sheet) => sheet.properties?.title === inserted.sheet);
      if (!tab)
        throw new ToolError(`Not undone: the tab "${inserted.sheet}" the rows were appended to is gone.`);
      await batchUpdate(auth.userId, signal, change.spreadsheetId, [
        {
          deleteDimension: {
            range: {
              sheetId: tab.properties?.sheetId ?? 0,
              dimension: 'ROWS',
              startIndex: inserted.start,
              endIndex: inserted.end,
            },
          },
        },
      ]);
      const undoId = journal.record(auth, {
        tool: 'undo_change',
        spreadsheetId: change.spreadsheetId,
        ranges,
        cells: change.cells,
        rows: inserted.end - inserted.start,
        undoesChangeId: change.id,
        undoUnavailableReason:
          'Undo is not available for an undo that deleted appended rows: append them again.',
      });
      return {
        restored: ranges,
        changedSince,
        undoId,
        text: `Undid change ${change.id}: deleted the ${amount(inserted.end - inserted.start, 'row')} it appended (${ranges.join(', ')}).`,
      };
    }
    const written = payload.areas.map((area) => area.before.map((row) => row.map(restoredValue)));
    const { data: response } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.values.batchUpdate(
        {
          spreadsheetId: change.spreadsheetId,
          requestBody: {
            valueInputOption: 'USER_ENTERED',
            includeValuesInResponse: true,
            responseValueRenderOption: 'FORMULA',
            data: payload.areas.map((_, index) => ({
              range: ranges[index],
              majorDimension: 'ROWS',
              values: written[index],
            })),
          },
        },
        request,
      ),
    );
    const areas: ValueArea[] = payload.areas.map((area, index) =>
      valueArea(
        rangeOnSheet(area.sheet, ranges[index]!.slice(ranges[index]!.lastIndexOf('!') + 1)),
        written[index]!,
        current[index]!,
        response.responses?.[index]?.updatedData?.values ?? undefined,
      ),
    );
    const undoId = recordValueChange(journal, auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      areas,
      undoesChangeId: change.id,
    });
    return {
      restored: ranges,
      changedSince,
      undoId,
      text: `Undid change ${change.id}: restored ${ranges.join(', ')}.`,
    };
  }

  async function undoNotes(
    journal: ChangeJournal,
    auth: AuthInfo,
    signal: AbortSignal,
    change: ListedChange,
    areas: NoteArea[],
    options: { force: boolean; dryRun: boolean },
  ) {
    const ranges = areas.map(noteAreaRange);
    const current = await readNotes(
      deps,
      auth,
      signal,
      change.spreadsheetId,
      areas.map((area) => ({
        title: area.sheet,
        sheetId: area.sheetId,
        rowStart: area.rowStart,
        rowEnd: area.rowStart + area.before.length,
        columnStart: area.columnStart,
        columnEnd: area.columnStart + Math.max(0, ...area.before.map((row) => row.length)),
      })),
    );
    const changedSince: string[] = [];
    for (const [index, area] of areas.entries())
      for (const [r, row] of area.after.entries())
        for (const [c, expected] of row.entries())
          if ((current[index]![r]?.[c] ?? '') !== expected)
            changedSince.push(
              rangeOnSheet(area.sheet, `${columnLetters(area.columnStart + c)}${area.rowStart + r + 1}`),
            );
    refuseChanged(change, changedSince, options.force);
    if (options.dryRun)
      return {
        restored: ranges,
        changedSince,
        text: `Dry run: would restore the notes of ${ranges.join(', ')} as they were before change ${change.id}. Nothing was changed.`,
      };
    await batchUpdate(
      auth.userId,
      signal,
      change.spreadsheetId,
      areas.map((area) => restoreNotesRequest(area, area.before)),
    );
    const undoAreas: NoteArea[] = areas.map((area, index) => ({
      ...area,
      before: current[index]!,
      after: area.before,
    }));
    const cells = undoAreas.reduce(
      (sum, area) => sum + area.before.length * (area.before[0]?.length ?? 0),
      0,
    );
    const undoId = journal.record(auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      ranges,
      cells,
      rows: undoAreas.reduce((sum, area) => sum + area.before.length, 0),
      undoesChangeId: change.id,
      ...bounded({ v: 1, kind: 'notes', areas: undoAreas }, cells),
    });
    return {
      restored: ranges,
      changedSince,
      undoId,
      text: `Undid change ${change.id}: restored the notes of ${ranges.join(', ')}.`,
    };
  }

  /** Inserts deleted rows or columns again, with their cells; refused when the tab is gone. */
  async function undoDimension(
    journal: ChangeJournal,
    auth: AuthInfo,
    signal: AbortSignal,
    change: ListedChange,
    image: DimensionImage,
    options: { dryRun: boolean },
  ) {
    const { data: outline } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.get(
        { spreadsheetId: change.spreadsheetId, fields: 'sheets.properties(sheetId,title)' },
        request,
      ),
    );
    if (!outline.sheets?.some((sheet) => sheet.properties?.sheetId === image.sheetId))
      throw new ToolError(
        `Not undone: the tab "${image.sheet}" the ${image.dimension.toLowerCase()} were deleted from is gone.`,
      );
    const count = image.endIndex - image.startIndex;
    const what = `${amount(count, image.dimension === 'ROWS' ? 'row' : 'column')} at index ${image.startIndex} of "${image.sheet}"`;
    if (options.dryRun)
      return {
        restored: [change.ranges[0] ?? image.sheet],
        changedSince: [],
        text: `Dry run: would insert again the ${what} with their cells. Nothing was changed.`,
      };
    const requests: sheets_v4.Schema$Request[] = [
      {
        insertDimension: {
          range: {
            sheetId: image.sheetId,
            dimension: image.dimension,
            startIndex: image.startIndex,
            endIndex: image.endIndex,
          },
          inheritFromBefore: false,
        },
      },
    ];
    if (image.rows.length > 0)
      requests.push({
        updateCells: {
          start:
            image.dimension === 'ROWS'
              ? { sheetId: image.sheetId, rowIndex: image.startIndex, columnIndex: 0 }
              : { sheetId: image.sheetId, rowIndex: 0, columnIndex: image.startIndex },
          rows: image.rows,
          fields: SHEET_IMAGE_CELL_FIELDS,
        },
      });
    await batchUpdate(auth.userId, signal, change.spreadsheetId, requests);
    const undoId = journal.record(auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      ranges: change.ranges,
      cells: change.cells,
      rows: change.rows,
      undoesChangeId: change.id,
      undoUnavailableReason: `Undo is not available for re-inserted ${image.dimension.toLowerCase()}: delete_dimension deletes them again.`,
    });
    return {
      restored: [change.ranges[0] ?? image.sheet],
      changedSince: [],
      undoId,
      text: `Undid change ${change.id}: inserted again the ${what} with their cells.`,
    };
  }

  async function undoSheet(
    journal: ChangeJournal,
    auth: AuthInfo,
    signal: AbortSignal,
    change: ListedChange,
    image: SheetImage,
    options: { force: boolean; dryRun: boolean },
  ) {
    const { data: outline } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.get(
        { spreadsheetId: change.spreadsheetId, fields: 'sheets.properties(sheetId,title)' },
        request,
      ),
    );
    const tabs = (outline.sheets ?? []).map((sheet) => sheet.properties ?? {});
    const title = image.properties.title ?? 'Restored';
    const taken = tabs.some((tab) => tab.title === title);
    refuseChanged(
      change,
      taken ? [`the tab name "${title}" (a tab of that name exists now)`] : [],
      options.force,
    );
    const newTitle = taken ? freeTitle(title, tabs) : title;
    const ids = new Set(tabs.map((tab) => tab.sheetId));
    let sheetId = image.properties.sheetId ?? 0;
    while (ids.has(sheetId)) sheetId = Math.floor(Math.random() * 2_000_000_000);
    if (options.dryRun)
      return {
        restored: [newTitle],
        changedSince: taken ? [title] : [],
        text: `Dry run: would recreate the tab "${newTitle}" with its values and formats. Nothing was changed.`,
      };
    const { gridProperties, tabColor, tabColorStyle, hidden, index, rightToLeft } = image.properties;
    const requests: sheets_v4.Schema$Request[] = [
      {
        addSheet: {
          properties: {
            sheetId,
            title: newTitle,
            ...(index != null ? { index } : {}),
            ...(gridProperties ? { gridProperties } : {}),
            ...(tabColor ? { tabColor } : {}),
            ...(tabColorStyle ? { tabColorStyle } : {}),
            ...(hidden ? { hidden } : {}),
            ...(rightToLeft ? { rightToLeft } : {}),
          },
        },
      },
    ];
    if (image.rows.length > 0)
      requests.push({
        updateCells: {
          start: { sheetId, rowIndex: 0, columnIndex: 0 },
          rows: image.rows,
          fields: SHEET_IMAGE_CELL_FIELDS,
        },
      });
    for (const merge of image.merges)
      requests.push({ mergeCells: { range: { ...merge, sheetId }, mergeType: 'MERGE_ALL' } });
    await batchUpdate(auth.userId, signal, change.spreadsheetId, requests);
    const undoId = journal.record(auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      ranges: [newTitle],
      cells: change.cells,
      rows: change.rows,
      undoesChangeId: change.id,
      undoUnavailableReason: `Undo is not available for a recreated tab: delete_sheet deletes it again (sheetId ${sheetId}).`,
    });
    return {
      restored: [newTitle],
      changedSince: taken ? [title] : [],
      undoId,
      sheetId,
      text: `Undid change ${change.id}: recreated the tab "${newTitle}" (sheetId ${sheetId}) with its values and formats.`,
    };
  }

  return [
    defineTool({
      name: 'list_changes',
      title: 'List changes',
      description:
        "Lists the changes made through Sheetgate to the person's spreadsheets, newest first: when, by which API key or app, which tool, ranges and cell counts, and whether undo_change can undo each. Filter by spreadsheet, credential or time; paged.",
      scope: 'sheets:read',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: z.object({
        spreadsheetId: spreadsheetId.optional(),
        credentialId: z.string().max(200).optional().describe('An API key id or an app client id.'),
        since: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; changes at or after it.'),
        until: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; changes before it.'),
        pageSize: z.number().int().min(1).max(100).default(20),
        pageToken: z.string().max(200).optional().describe("The previous answer's nextPageToken."),
      }),
      outputSchema: z.object({ changes: z.array(listedChange), nextPageToken: z.string().nullable() }),
      async run(input, { auth }) {
        if (!journal) off();
        await journal.flush();
        let page: Awaited<ReturnType<ChangeJournal['list']>>;
        try {
          page = await journal.list(auth, {
            spreadsheetId: input.spreadsheetId,
            credentialId: input.credentialId,
            since: input.since ? new Date(input.since) : undefined,
            until: input.until ? new Date(input.until) : undefined,
            pageSize: input.pageSize,
            pageToken: input.pageToken,
          });
        } catch (error) {
          if (kindOfCallError(error) === 'invalid_argument')
            throw new ToolError('pageToken is not one list_changes answered.');
          throw journalUnavailable(error);
        }
        const changes = page.changes.map(shown);
        const lines = changes.map(
          (change) =>
            `${change.changeId} ${change.at} ${change.tool} ${change.ranges.join(', ')} (${amount(change.cells, 'cell')}) by ${change.credential.name || change.credential.kind}${change.undoneAt ? ' — undone' : change.undoable ? '' : ' — cannot be undone'}`,
        );
        return {
          structuredContent: { changes, nextPageToken: page.nextPageToken || null },
          text: changes.length
            ? `${amount(changes.length, 'change')}:\n${lines.join('\n')}${page.nextPageToken ? `\nMore: pass pageToken ${page.nextPageToken}.` : ''}`
            : 'No changes found.',
        };
      },
    }),

    defineTool({
      name: 'undo_change',
      title: 'Undo a change',
      description:
        "Undoes a change made through Sheetgate (by changeId; by default this credential's last change): restores the cells it replaced, or recreates the tab it deleted. Refused, naming the cells, when they were changed since; force: true restores anyway. The undo is itself a change that can be undone.",
      scope: 'sheets:write',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      inputSchema: z.object({
        changeId: changeId.optional(),
        force: z
          .boolean()
          .default(false)
          .describe('Restore even cells changed since the change, losing those later edits.'),
        dryRun,
      }),
      outputSchema: z.object({
        undoneChangeId: z.string(),
        restored: z.array(z.string()).describe('The ranges restored, or the tab recreated.'),
        changedSince: z
          .array(z.string())
          .describe('Cells changed since the change (restored only with force).'),
        dryRun: dryRunOutput,
        changeId: z.string().optional().describe("The undo's own change journal entry."),
        sheetId: z.number().optional().describe('The recreated tab, when the change deleted one.'),
      }),
      async run(input, { auth, signal }) {
        if (!journal) off();
        // The caller's own change may still be on its way to auth.
        await journal.flush();
        const found = await journal.get(auth, input.changeId).catch((error: unknown) => {
          throw journalUnavailable(error);
        });
        if (!found) throw notFound(input.changeId);
        const { change, payload } = found;
        if (change.undoneAtMs)
          throw new ToolError(
            `Change ${change.id} was undone already${change.undoneByChangeId ? ` (by change ${change.undoneByChangeId})` : ''}.`,
          );
        if (!change.undoable || !payload)
          throw new ToolError(
            `Change ${change.id} (${change.tool}) cannot be undone. ${change.undoUnavailableReason || 'Undo is not available for it.'}`,
          );
        const options = { force: input.force, dryRun: input.dryRun };
        const outcome =
          payload.kind === 'sheet'
            ? await undoSheet(journal, auth, signal, change, payload.sheet, options)
            : payload.kind === 'notes'
              ? await undoNotes(journal, auth, signal, change, payload.areas, options)
              : payload.kind === 'dimension'
                ? await undoDimension(journal, auth, signal, change, payload.dimension, options)
                : await undoValues(journal, auth, signal, change, payload, options);
        if (input.dryRun)
          return {
            structuredContent: {
              undoneChangeId: change.id,
              restored: outcome.restored,
              changedSince: outcome.changedSince,
              dryRun: true,
            },
            text: outcome.text,
          };
        const undoId = 'undoId' in outcome ? outcome.undoId : undefined;
        if (undoId) {
          // Recorded before it is marked (auth marks only what it holds).
          await journal.flush();
          await journal.markUndone(auth, change.id, undoId);
        }
        return {
          structuredContent: {
            undoneChangeId: change.id,
            restored: outcome.restored,
            changedSince: outcome.changedSince,
            ...(undoId ? { changeId: undoId } : {}),
            ...('sheetId' in outcome && outcome.sheetId !== undefined ? { sheetId: outcome.sheetId } : {}),
          },
          text: `${outcome.text}${input.force && outcome.changedSince.length ? ` Forced: ${amount(outcome.changedSince.length, 'cell')} changed since were replaced too.` : ''}${changeNote(undoId)}`,
        };
      },
    }),
  ];
}

/** Auth unreachable: said to the model as something to retry, not as an unexpected failure. */
function journalUnavailable(error: unknown): unknown {
  return kindOfCallError(error) === 'unavailable'
    ? new ToolError('The change journal cannot be reached right now; nothing was changed. Try again shortly.')
    : error;
}

function freeTitle(title: string, tabs: Array<{ title?: string | null }>): string {
  const titles = new Set(tabs.map((tab) => tab.title));
  for (let n = 1; ; n++) {
    const candidate = `${title} (restored${n > 1 ? ` ${n}` : ''})`;
    if (!titles.has(candidate)) return candidate;
  }
}

/** Refuses an undo over cells changed since the change, naming them, unless forced. */
function refuseChanged(change: ListedChange, changedSince: string[], force: boolean): void {
  if (changedSince.length === 0 || force) return;
  const named = changedSince.slice(0, NAMED_CELLS).join(', ');
  const more = changedSince.length > NAMED_CELLS ? ` and ${changedSince.length - NAMED_CELLS} more` : '';
  throw new ToolError(
    `Not undone: ${changedSince.length === 1 ? 'this was' : `these ${changedSince.length} were`} changed since change ${change.id}: ${named}${more}. Pass force: true to restore the earlier contents anyway (the later edits are lost).`,
  );
}

/**
 * Every other write tool journaled without undo (docs/design.md §11.8): a successful call that was
 * not a dry run records who changed which spreadsheet with which tool, and says undo is not
 * available for it. Tools that journal themselves are left as they are.
 */
export function journalOtherWrites(
  tools: ToolDefinition[],
  journal: ChangeJournal | undefined,
): ToolDefinition[] {
  if (!journal) return tools;
  return tools.map((tool) => {
    if (tool.scope !== 'sheets:write' || SELF_JOURNALED.has(tool.name)) return tool;
    return {
      ...tool,
      async run(input, context) {
        const output = await tool.run(input, context);
        const args = input as { dryRun?: boolean; spreadsheetId?: unknown; fileId?: unknown };
        if (args.dryRun !== true && output.structuredContent.dryRun !== true) {
          // The file named in the call, else the one it made (create_spreadsheet, copy_spreadsheet).
          const made = output.structuredContent;
          const target =
            [args.spreadsheetId, args.fileId, made.spreadsheetId, made.fileId, made.id].find(
              (value): value is string => typeof value === 'string',
            ) ?? '';
          journal.record(context.auth, {
            tool: tool.name,
            spreadsheetId: target.slice(0, 200),
            ranges: [],
            cells: 0,
            rows: 0,
            undoUnavailableReason: `Undo is not available for ${tool.name}: Sheetgate records that it ran, not what it replaced.`,
          });
        }
        return output;
      },
    };
  });
}

/** Write tools that journal their own changes with what undo needs. */
const SELF_JOURNALED = new Set([
  'write_range',
  'write_ranges',
  'append_rows',
  'clear_range',
  'set_notes',
  'delete_sheet',
  'delete_dimension',
  'undo_change',
]);
