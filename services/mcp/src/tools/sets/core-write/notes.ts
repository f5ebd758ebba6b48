import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { bounded } from '../../../journal/change-payloads.ts';
import { notesSummary } from '../../../journal/change-summaries.ts';
import { readNotes } from '../../../journal/note-images.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import {
  a1Range,
  changeIdOutput,
  dryRun,
  dryRunOutput,
  spreadsheetId,
  wouldLoseOutput,
} from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import {
  areaRows,
  cellAddress,
  readTabGrids,
  readTabGridsWithData,
  type TabArea,
  type TabGrid,
  tabAreaOf,
} from '../../kit/table-area.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** set_notes: cells' notes set or cleared, journaled with the notes they replace. */
export function noteTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'set_notes',
      toolset: 'core-write',
      title: 'Set or clear notes',
      description: 'Sets the note of every cell of each range, or clears it with null.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      inputSchema: z.object({
        spreadsheetId,
        notes: z
          .array(
            z.object({
              range: a1Range,
              note: z.string().max(50_000).nullable(),
            }),
          )
          .min(1)
          .max(500),
        dryRun,
      }),
      outputSchema: z.object({
        updatedRanges: z.array(z.string()),
        changeId: changeIdOutput,
        dryRun: dryRunOutput,
        wouldLose: wouldLoseOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          // The confirmation's own read: it checks every range against its tab (refusing as a real
          // call would) and finds the notes that would be replaced or cleared; nothing is written.
          const { areas, wouldLose } = await notesLost(input, auth.userId, signal);
          const updatedRanges = areas.map(({ area }) => areaRows(area, area.rowStart, area.rowEnd));
          return {
            structuredContent: { updatedRanges, dryRun: true, wouldLose },
            text: `Dry run, no note was changed. It would set or clear the notes of ${updatedRanges.join(', ')}. ${wouldLose ? `It would lose ${wouldLose}.` : 'No note would be lost.'}`,
          };
        }
        // A second request is needed: batchUpdate names a tab by sheetId, which only the tabs' read gives.
        const areas = await notedAreas(input.spreadsheetId, input.notes, auth.userId, signal);
        // The change journal's before-image: the notes the areas hold now (one more read).
        const journal = deps.journal;
        const before = journal
          ? await readNotes(
              deps,
              auth,
              signal,
              input.spreadsheetId,
              areas.map(({ area }) => area),
            )
          : undefined;
        const requests: sheets_v4.Schema$Request[] = areas.map(({ area, note }) => {
          const range = {
            sheetId: area.sheetId,
            startRowIndex: area.rowStart,
            endRowIndex: area.rowEnd,
            startColumnIndex: area.columnStart,
            endColumnIndex: area.columnEnd,
          };
          // Without rows, updateCells clears the masked field over its range; repeatCell sets one value on all.
          return note
            ? { repeatCell: { range, cell: { note }, fields: 'note' } }
            : { updateCells: { range, fields: 'note' } };
        });
        await batchUpdate(auth.userId, signal, input.spreadsheetId, requests);
        const updatedRanges = areas.map(({ area }) => areaRows(area, area.rowStart, area.rowEnd));
        const set = areas.filter(({ note }) => note).length;
        let changeId: string | undefined;
        if (journal && before) {
          const noteAreas = areas.map(({ area, note }, index) => ({
            sheet: area.title,
            sheetId: area.sheetId,
            rowStart: area.rowStart,
            columnStart: area.columnStart,
            before: before[index]!,
            after: before[index]!.map((row) => row.map(() => note ?? '')),
          }));
          const cells = noteAreas.reduce(
            (sum, area) => sum + area.before.length * (area.before[0]?.length ?? 0),
            0,
          );
          changeId = journal.record(auth, {
            tool: 'set_notes',
            spreadsheetId: input.spreadsheetId,
            ranges: updatedRanges,
            cells,
            rows: noteAreas.reduce((sum, area) => sum + area.before.length, 0),
            summary: notesSummary({ set, cleared: areas.length - set, cells, ranges: updatedRanges }),
            ...bounded({ v: 1, kind: 'notes', areas: noteAreas }, cells),
          });
        }
        return {
          structuredContent: { updatedRanges, ...(changeId ? { changeId } : {}) },
          text: `Set the note of ${amount(set, 'range')} and cleared it on ${amount(areas.length - set, 'range')}: ${updatedRanges.join(', ')}.${changeNote(changeId)}`,
        };
      },
      describeLoss: async (input, { auth, signal }) =>
        (await notesLost(input, auth.userId, signal)).wouldLose,
    }),
  ];

  /**
   * The areas a set_notes call would change and the notes it would replace or clear, as the
   * confirmation's sentence (null when none). One spreadsheets.get of the ranges as written answers
   * the tabs' sizes and the notes.
   */
  async function notesLost(
    input: { spreadsheetId: string; notes: Array<{ range: string; note: string | null }> },
    userId: string,
    signal: AbortSignal,
  ): Promise<{ areas: Array<{ area: TabArea; note: string | null }>; wouldLose: string | null }> {
    const written = input.notes.map(({ range }) => {
      const { sheetTitle, cells } = splitRange(range);
      return gridBounds(cells) === undefined
        ? undefined
        : sheetTitle === undefined
          ? cells
          : rangeOnSheet(sheetTitle, cells || undefined);
    });
    const answer = written.every((range) => range !== undefined)
      ? await readTabGridsWithData(deps, userId, signal, input.spreadsheetId, written, 'note')
      : undefined;
    let areas: Array<{ area: TabArea; note: string | null }>;
    let perTab: Map<string, sheets_v4.Schema$GridData[]>;
    if (answer) {
      areas = notedAreasOf(answer.tabs, input.notes);
      perTab = answer.data;
    } else {
      // A range Google refused (no such tab, outside the grid) or not A1: the sizes alone say why.
      areas = await notedAreas(input.spreadsheetId, input.notes, userId, signal);
      const { data } = await callGoogle(userId, signal, (request) =>
        sheets.spreadsheets.get(
          {
            spreadsheetId: input.spreadsheetId,
            ranges: areas.map(({ area }) => areaRows(area, area.rowStart, area.rowEnd)),
            includeGridData: true,
            fields: 'sheets(properties(title),data(startRow,startColumn,rowData(values(note))))',
          },
          request,
        ),
      );
      perTab = new Map(
        (data.sheets ?? []).map((sheet) => [sheet.properties?.title ?? '', [...(sheet.data ?? [])]]),
      );
    }
    // Grid data comes back per tab, each range's in the order asked.
    const lost: string[] = [];
    for (const { area, note } of areas) {
      const grid = perTab.get(area.title)?.shift();
      for (const [rowIndex, rowData] of (grid?.rowData ?? []).entries()) {
        for (const [columnIndex, cell] of (rowData.values ?? []).entries()) {
          if (cell.note && cell.note !== note)
            lost.push(
              rangeOnSheet(area.title, cellAddress(area.rowStart + rowIndex, area.columnStart + columnIndex)),
            );
        }
      }
    }
    if (lost.length === 0) return { areas, wouldLose: null };
    const shown = lost.slice(0, 5).join(', ');
    return {
      areas,
      wouldLose: `the text of ${amount(lost.length, 'note')} (on ${shown}${lost.length > 5 ? ', …' : ''})`,
    };
  }

  /** Each entry's area within its tab's grid (one call for the tabs), refusing a range past the grid. */
  async function notedAreas(
    spreadsheet: string,
    notes: ReadonlyArray<{ range: string; note: string | null }>,
    userId: string,
    signal: AbortSignal,
  ): Promise<Array<{ area: TabArea; note: string | null }>> {
    return notedAreasOf(await readTabGrids(deps, userId, signal, spreadsheet), notes);
  }

  function notedAreasOf(
    tabs: readonly TabGrid[],
    notes: ReadonlyArray<{ range: string; note: string | null }>,
  ): Array<{ area: TabArea; note: string | null }> {
    return notes.map(({ range, note }) => {
      const area = tabAreaOf(range, tabs);
      if (area.rowEnd <= area.rowStart || area.columnEnd <= area.columnStart)
        throw new ToolError(`${JSON.stringify(range)} is outside the tab's grid`);
      return { area, note: note === '' ? null : note };
    });
  }
}
