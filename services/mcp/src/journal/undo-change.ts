import type { ToolsetName } from '@sheetgate/proto';
import type { sheets_v4 } from 'googleapis';
import type { AuthInfo } from '../auth/auth-info.ts';
import { amount, quotedName } from '../tools/guards/loss-phrases.ts';
import { columnLetters, rangeOnSheet } from '../tools/kit/a1.ts';
import { readCellKinds } from '../tools/kit/cell-kinds.ts';
import { spreadsheetBatchUpdate } from '../tools/kit/spreadsheet-batch-update.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import type { ChangeJournal, ListedChange } from './change-journal.ts';
import {
  ambiguousCells,
  areaRange,
  bounded,
  type ChangePayload,
  kindsOf,
  restoredValue,
  type SheetImage,
  sameCell,
  type ValueArea,
  valueArea,
} from './change-payloads.ts';
import { insertedDimensionSummary } from './change-summaries.ts';
import { isDrivePayload } from './drive-payloads.ts';
import { DriveUndoRefusal, undoDriveChange } from './drive-undo.ts';
import { type NoteArea, noteAreaRange, readNotes, restoreNotesRequest } from './note-images.ts';
import { recordValueChange } from './record-change.ts';
import { captureDimension, type DimensionImage, SHEET_IMAGE_CELL_FIELDS } from './sheet-image.ts';
import { undoState } from './state/undo-state.ts';
import { undoInserted } from './undo-inserted.ts';
import { UndoRefusal } from './undo-refusal.ts';
import { undoToolset } from './undo-toolset.ts';

/**
 * What undoing a change came to (docs/design.md §11.8): done (or, for a dry run, what would be
 * done), or one of the refusals. Each caller words them its own way: undo_change for a model, the
 * dashboard's Activity (through ChangeUndoService) for a person.
 */
export type UndoOutcome =
  | {
      kind: 'undone';
      change: ListedChange;
      /** The ranges restored, or the tab recreated. */
      restored: string[];
      /** Cells changed since the change, replaced too (only with `force`). */
      changedSince: string[];
      /** The undo's own journal entry; absent for a dry run. */
      undoId?: string | undefined;
      /** Why the undo itself cannot be undone, when it cannot (its entry says the same). */
      undoUnavailable?: string | undefined;
      /** The recreated tab, when the change deleted one. */
      sheetId?: number | undefined;
      dryRun: boolean;
      /** One sentence saying what was (or would be) restored. */
      text: string;
    }
  /** Cells (or a tab name) changed since the change: not undone without `force`. */
  | { kind: 'changed_since'; change: ListedChange; cells: string[] }
  /** No such change of this person's: an unknown id and another person's alike. */
  | { kind: 'not_found' }
  | { kind: 'already_undone'; change: ListedChange; undoneByChangeId: string }
  /** Undo is not available for this change; `reason` says why. */
  | { kind: 'not_undoable'; change: ListedChange; reason: string }
  /** What the change wrote to is gone (the tab); `message` says so, "Not undone: …". */
  | { kind: 'target_gone'; change: ListedChange; message: string }
  /** The credential lacks the toolset of `tool`, whose change the undo would write again (undo-toolset.ts). */
  | { kind: 'toolset_not_enabled'; change: ListedChange; tool: string; toolset: ToolsetName };

export interface UndoRequest {
  /** The change to undo; absent: this credential's newest change that stands. */
  changeId?: string | undefined;
  /** Only a change to this spreadsheet: the newest one without `changeId`, else not found. */
  spreadsheetId?: string | undefined;
  /** Restore even cells changed since the change, losing those later edits. */
  force: boolean;
  dryRun: boolean;
}

export type ChangeUndo = (auth: AuthInfo, signal: AbortSignal, request: UndoRequest) => Promise<UndoOutcome>;

function targetGone(change: ListedChange, message: string): never {
  throw new UndoRefusal({ kind: 'target_gone', change, message });
}

/** Refuses an undo over cells changed since the change, unless forced. */
function refuseChanged(change: ListedChange, changedSince: string[], force: boolean): void {
  if (changedSince.length === 0 || force) return;
  throw new UndoRefusal({ kind: 'changed_since', change, cells: changedSince });
}

function freeTitle(title: string, tabs: Array<{ title?: string | null }>): string {
  const titles = new Set(tabs.map((tab) => tab.title));
  for (let n = 1; ; n++) {
    const candidate = `${title} (restored${n > 1 ? ` ${n}` : ''})`;
    if (!titles.has(candidate)) return candidate;
  }
}

/**
 * The one undo of a journaled change, for undo_change and the dashboard alike. It reads the cells
 * the change wrote and refuses, naming them, when any holds something other than what the change
 * left (`force` restores anyway); restores the before-images (text behind an apostrophe), deletes
 * appended rows, inserts deleted rows or columns again, recreates a deleted tab; journals the undo
 * under `auth`'s credential (so it can be undone in turn) and marks the change undone by it.
 * Google's failures are thrown (ToolError, GoogleReconnectNeeded), and so are the journal's (a
 * gRPC status error).
 */
export function createChangeUndo(deps: ToolDeps & { journal: ChangeJournal }): ChangeUndo {
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
        targetGone(change, `Not undone: the tab "${inserted.sheet}" the rows were appended to is gone.`);
      const range = {
        sheetId: tab.properties?.sheetId ?? 0,
        dimension: 'ROWS' as const,
        startIndex: inserted.start,
        endIndex: inserted.end,
      };
      // The rows deleted are kept, so undoing this undo inserts them again (two reads).
      const captured = await captureDimension(deps, auth, signal, {
        spreadsheetId: change.spreadsheetId,
        ...range,
      });
      await batchUpdate(auth.userId, signal, change.spreadsheetId, [{ deleteDimension: { range } }]);
      const undoId = journal.record(auth, {
        tool: 'undo_change',
        spreadsheetId: change.spreadsheetId,
        ranges,
        cells: change.cells,
        rows: inserted.end - inserted.start,
        summary: `deleted the ${amount(inserted.end - inserted.start, 'row')} change ${change.id} appended`,
        undoesChangeId: change.id,
        ...(captured.image
          ? { payload: { v: 1, kind: 'dimension', dimension: captured.image } }
          : { undoUnavailableReason: captured.undoUnavailableReason ?? '' }),
      });
      return {
        restored: ranges,
        changedSince,
        undoId,
        ...(captured.image ? {} : { undoUnavailable: captured.undoUnavailableReason }),
        text: `Undid change ${change.id}: deleted the ${amount(inserted.end - inserted.start, 'row')} it appended (${ranges.join(', ')}).`,
      };
    }
    const written = payload.areas.map((area) => {
      const kindOf = kindsOf(area);
      return area.before.map((row, r) => row.map((cell, c) => restoredValue(cell, kindOf(r, c))));
    });
    // What the undo replaces is itself a before-image (undoing the undo redoes the change).
    const currentKinds = await readCellKinds(
      deps,
      auth,
      signal,
      change.spreadsheetId,
      payload.areas.flatMap((area, index) => ambiguousCells(area, current[index]!)),
    );
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
        {
          sheet: area.sheet,
          top: area.top,
          left: area.left,
          values: current[index]!,
          kindOf: (row, column) =>
            currentKinds.of({ sheet: area.sheet, row: area.top + row, column: area.left + column }),
        },
        written[index]!,
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
      targetGone(
        change,
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
    // Undoing this undo deletes them again (undo-inserted.ts).
    const inserted = {
      sheet: image.sheet,
      sheetId: image.sheetId,
      dimension: image.dimension,
      startIndex: image.startIndex,
      endIndex: image.endIndex,
      rows: image.rows,
    };
    const undoId = journal.record(auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      ranges: change.ranges,
      cells: change.cells,
      rows: change.rows,
      summary: insertedDimensionSummary({ ...inserted, title: image.sheet }),
      undoesChangeId: change.id,
      payload: { v: 1, kind: 'inserted', inserted },
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
          rows: onTab(image.rows, image.properties.sheetId ?? 0, sheetId),
          fields: SHEET_IMAGE_CELL_FIELDS,
        },
      });
    for (const merge of image.merges)
      requests.push({ mergeCells: { range: { ...merge, sheetId }, mergeType: 'MERGE_ALL' } });
    await batchUpdate(auth.userId, signal, change.spreadsheetId, requests);
    // An added tab as a structure change: undoing this undo deletes it again, keeping its cells.
    const before = tabs.map((tab) => ({ sheetId: tab.sheetId ?? 0, title: tab.title ?? '' }));
    const undoId = journal.record(auth, {
      tool: 'undo_change',
      spreadsheetId: change.spreadsheetId,
      ranges: [newTitle],
      cells: change.cells,
      rows: change.rows,
      summary: `recreated the tab ${quotedName(newTitle)}`,
      undoesChangeId: change.id,
      payload: {
        v: 1,
        kind: 'state',
        footprint: { cells: [], dimensions: [], sheets: [], namedRanges: false, addsTabs: true },
        before: { cells: [], dimensions: [], sheets: [], tabs: before },
        after: { cells: [], dimensions: [], sheets: [], tabs: [...before, { sheetId, title: newTitle }] },
      },
    });
    return {
      restored: [newTitle],
      changedSince: taken ? [title] : [],
      undoId,
      sheetId,
      text: `Undid change ${change.id}: recreated the tab "${newTitle}" (sheetId ${sheetId}) with its values and formats.`,
    };
  }

  /**
   * Undos under way on this replica, by person and change. A second undo of a change (a double
   * click, a model calling undo_change twice at once) waits for the first and then finds it undone;
   * run side by side, both would write to Google (a deleted tab recreated twice). Across replicas
   * this is not guarded (docs/design.md §11.8).
   */
  const underWay = new Map<string, Promise<UndoOutcome>>();

  return function undoChange(auth, signal, request) {
    const key = `${auth.userId}/${request.changeId}`;
    const earlier = underWay.get(key);
    const settled = () => undefined;
    const run = (earlier ? earlier.then(settled, settled) : Promise.resolve()).then(() =>
      undoOnce(auth, signal, request),
    );
    underWay.set(key, run);
    const forget = () => {
      if (underWay.get(key) === run) underWay.delete(key);
    };
    run.then(forget, forget);
    return run;
  };

  async function undoOnce(auth: AuthInfo, signal: AbortSignal, request: UndoRequest): Promise<UndoOutcome> {
    // The caller's own change may still be on its way to auth.
    await journal.flush();
    const found = await journal.get(auth, request.changeId, request.spreadsheetId);
    if (!found) return { kind: 'not_found' };
    const { change, payload } = found;
    if (change.undoneAtMs)
      return { kind: 'already_undone', change, undoneByChangeId: change.undoneByChangeId };
    if (!change.undoable || !payload)
      return {
        kind: 'not_undoable',
        change,
        reason: change.undoUnavailableReason || 'Undo is not available for it.',
      };
    // Before any Google read or write: the undo may do only what the credential's sets allow.
    const needs = await undoToolset(journal, auth, change);
    if (needs.kind === 'unknown') return { kind: 'not_undoable', change, reason: needs.reason };
    if (needs.kind === 'not_enabled')
      return { kind: 'toolset_not_enabled', change, tool: needs.tool, toolset: needs.set };
    const options = { force: request.force, dryRun: request.dryRun };
    let outcome: {
      restored: string[];
      changedSince: string[];
      text: string;
      undoId?: string;
      undoUnavailable?: string;
      sheetId?: number;
    };
    try {
      outcome = isDrivePayload(payload)
        ? await undoDriveChange(deps, journal, auth, signal, change, payload, options)
        : payload.kind === 'sheet'
          ? await undoSheet(journal, auth, signal, change, payload.sheet, options)
          : payload.kind === 'notes'
            ? await undoNotes(journal, auth, signal, change, payload.areas, options)
            : payload.kind === 'dimension'
              ? await undoDimension(journal, auth, signal, change, payload.dimension, options)
              : payload.kind === 'state'
                ? await undoState(deps, auth, signal, change, payload, options)
                : payload.kind === 'inserted'
                  ? await undoInserted(deps, auth, signal, change, payload.inserted, options)
                  : await undoValues(journal, auth, signal, change, payload, options);
    } catch (error) {
      if (error instanceof UndoRefusal || error instanceof DriveUndoRefusal) return error.outcome;
      throw error;
    }
    if (outcome.undoId) {
      // Recorded before it is marked (auth marks only what it holds).
      await journal.flush();
      await journal.markUndone(auth, change.id, outcome.undoId);
    }
    return {
      kind: 'undone',
      change,
      restored: outcome.restored,
      changedSince: outcome.changedSince,
      undoId: outcome.undoId,
      undoUnavailable: outcome.undoUnavailable,
      sheetId: outcome.sheetId,
      dryRun: request.dryRun,
      text: outcome.text,
    };
  }
}

/** A recreated tab's cells, its own pivot tables' sources moved to its new sheetId when it has one. */
function onTab(rows: sheets_v4.Schema$RowData[], was: number, is: number): sheets_v4.Schema$RowData[] {
  if (was === is) return rows;
  return rows.map((row) => ({
    ...row,
    values: (row.values ?? []).map((cell) =>
      cell.pivotTable?.source && (cell.pivotTable.source.sheetId ?? 0) === was
        ? { ...cell, pivotTable: { ...cell.pivotTable, source: { ...cell.pivotTable.source, sheetId: is } } }
        : cell,
    ),
  }));
}
