import { describeChange } from '@sheetgate/proto';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { type ChangeArea, changeAreas } from '../../../journal/change-areas.ts';
import { type Cell, sameCell } from '../../../journal/change-payloads.ts';
import { undoToolset } from '../../../journal/undo-toolset.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { a1Range, pageOffset, sheetId, spreadsheetId } from '../../kit/common-schemas.ts';
import { firstVisibleTab, TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { changeId, journalUnavailable, notFound, off } from '../../kit/journal-refusals.ts';
import { tabOf } from '../../kit/tab-ref.ts';
import { defineTool, type ToolContext, type ToolDefinition } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { toolsetOf } from '../../registry.ts';
import { describeToolset, enablesToolset, notEnabledClause } from '../../toolsets.ts';

/**
 * read_change_cells (docs/design.md §11.11): the change view's own tool, listed only to hosts that
 * declared MCP Apps and only for their views to call (visibility app, apps/views.ts). A journaled
 * change's cells — what each held before (the entry's before-image, §11.8) beside what it holds
 * now (one FORMULA read), the cells the change altered and those changed since marked — or the
 * cells a destructive call's dry run would lose, a window at a time. It reads what undo_change
 * would read and refuses what undo_change refuses: another person's change is not found, and a
 * change whose tool's toolset the credential lacks is not shown.
 */

/** Cells of one window, its columns and rows: a bounded answer whatever the change. */
export const WINDOW_CELLS = 500;
const WINDOW_COLUMNS = 26;
const WINDOW_ROWS = 100;
/** Characters of a cell's text shown; longer text ends with "…". */
const CELL_CHARACTERS = 200;
/** Areas named in an answer (a write_ranges of many ranges names the first ones). */
const AREAS_NAMED = 50;

const LOSS_TOOLS = ['clear_range', 'delete_dimension', 'delete_sheet'] as const;

const lossInput = z
  .object({
    tool: z.enum(LOSS_TOOLS),
    spreadsheetId,
    range: a1Range.optional(),
    sheetId: sheetId.optional(),
    dimension: z.enum(['ROWS', 'COLUMNS']).optional(),
    startIndex: z.number().int().min(0).optional(),
    endIndex: z.number().int().min(1).optional(),
  })
  .describe("A dry run's call: the tool and its arguments.");
type Loss = z.infer<typeof lossInput>;

const shownCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const position = z.tuple([z.number(), z.number()]);

const windowOutput = z.object({
  range: z.string().describe('The window, in A1.'),
  top: z.number().describe('Its first row on the tab, zero-based.'),
  left: z.number(),
  areaRows: z.number().describe('Rows of the whole area.'),
  areaColumns: z.number(),
  before: z.array(z.array(shownCell)).describe('Each cell before; null where the change left it alone.'),
  after: z
    .array(z.array(shownCell))
    .nullable()
    .describe('Each cell now (a dry run: after the call); null when the cells are gone.'),
  changed: z.array(position).describe('[row, column] in the window of the cells the change alters.'),
  changedSince: z.array(position).describe('Cells that hold something other than what the change left.'),
  wrote: z.string().nullable().describe('The parts of cells it wrote when not values: formats, notes.'),
  nextOffset: z.number().nullable(),
  columnsCut: z.boolean().describe('The area is wider than the window shows.'),
});
type Window = z.infer<typeof windowOutput>;

export function changeCellsTools(deps: ToolDeps): ToolDefinition[] {
  const { journal, sheets, callGoogle } = deps;

  /** The cells of a window now, as a FORMULA read gives them. */
  async function readWindow(context: ToolContext, spreadsheetId: string, range: string) {
    const { data } = await callGoogle(context.auth.userId, context.signal, (request) =>
      sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption: 'FORMULA' }, request),
    );
    return (data.values ?? []) as unknown[][];
  }

  return [
    defineTool({
      name: 'read_change_cells',
      toolset: 'core-read',
      title: "Read a change's cells",
      description:
        "For the change view: a change's cells before it and now, or the cells a destructive call would lose, a window at a time.",
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        changeId: changeId.optional(),
        wouldLose: lossInput.optional(),
        area: z.number().int().min(0).default(0),
        offset: pageOffset,
      }),
      outputSchema: z.object({
        changeId: z.string().nullable(),
        spreadsheetId: z.string(),
        tool: z.string(),
        summary: z.string(),
        undoable: z.boolean().describe('Whether undo_change can undo it now.'),
        undoneByChangeId: z.string().nullable(),
        undoUnavailableReason: z.string().nullable(),
        areas: z.array(z.string()).describe('The areas of its cells, in A1.'),
        area: z.number().nullable(),
        window: windowOutput.nullable(),
        note: z.string().nullable().describe('Why no cells are shown, when none are.'),
      }),
      async run(input, context) {
        if ((input.changeId === undefined) === (input.wouldLose === undefined))
          throw new ToolError('Give changeId or wouldLose, one of them.');
        return input.wouldLose
          ? await lossCells(input.wouldLose, input.offset, context)
          : await changeCells(input.changeId!, input.area, input.offset, context);
      },
    }),
  ];

  async function changeCells(id: string, index: number, offset: number, context: ToolContext) {
    const { auth } = context;
    if (!journal) off();
    const found = await journal
      .flush()
      .then(() => journal.get(auth, id))
      .catch((error: unknown) => {
        throw journalUnavailable(error);
      });
    if (!found) throw notFound(id);
    const { change, payload } = found;
    // What undo_change may do, the view may show: the toolset of the tool whose change it is.
    const needs = await undoToolset(journal, auth, change).catch((error: unknown) => {
      throw journalUnavailable(error);
    });
    if (needs.kind === 'unknown')
      throw new ToolError(`Change ${id}'s cells cannot be shown. ${needs.reason}`);
    if (needs.kind === 'not_enabled')
      throw new ToolError(
        `Not shown: change ${id} was made by ${needs.tool}, in the toolset ${describeToolset(needs.set)}, ${notEnabledClause(auth.credential, deps.dashboardUrl)}.`,
      );
    const stands = !change.undoneAtMs;
    const areas = payload ? changeAreas(payload) : [];
    const answer = {
      changeId: change.id,
      spreadsheetId: change.spreadsheetId,
      tool: change.tool,
      summary: describeChange(change),
      undoable: change.undoable && stands,
      undoneByChangeId: change.undoneByChangeId || null,
      undoUnavailableReason: change.undoable ? null : change.undoUnavailableReason || null,
      areas: areas.slice(0, AREAS_NAMED).map((area) => areaRange(area, 0, area.height, area.width)),
    };
    const area = areas[index];
    if (!area) {
      const note = areas.length
        ? `Change ${id} has ${areas.length} areas of cells; area ${index} is none of them.`
        : payload
          ? `Change ${id} holds no cells to show: ${answer.summary}.`
          : `Change ${id}'s cells were not kept: ${answer.undoUnavailableReason ?? 'undo is not available for it.'}`;
      if (areas.length) throw new ToolError(note);
      return answerOf({ ...answer, area: null, window: null, note });
    }
    const shape = windowShape(area.height, area.width, offset);
    const range = areaRange(area, shape.top, shape.rows, shape.columns);
    // Cells taken away (a deleted tab, rows or columns) are nowhere to read.
    const now =
      area.after && shape.rows > 0 ? await readWindow(context, change.spreadsheetId, range) : undefined;
    const nowAt = (row: number, column: number): Cell => cellOf(now?.[row]?.[column]);
    const window = buildWindow(area, shape, range, now !== undefined, (row, column) => {
      const at = [shape.top + row, column] as const;
      let before = area.before(...at);
      // A change of formats or notes kept no values: a cell's value before is its value now.
      if (before !== null && area.wrote) before = nowAt(row, column);
      const after = area.after?.(...at) ?? null;
      return {
        before,
        after: now ? nowAt(row, column) : null,
        changed: area.changed(...at),
        changedSince:
          stands &&
          now !== undefined &&
          !area.wrote &&
          after !== null &&
          !sameCell(nowAt(row, column), after),
      };
    });
    return answerOf({ ...answer, area: index, window, note: null });
  }

  async function lossCells(loss: Loss, offset: number, context: ToolContext) {
    const { auth, signal } = context;
    const set = toolsetOf(loss.tool)!;
    if (!enablesToolset(auth, set))
      throw new ToolError(
        `Not shown: ${loss.tool} is in the toolset ${describeToolset(set)}, ${notEnabledClause(auth.credential, deps.dashboardUrl)}.`,
      );
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.get(
        { spreadsheetId: loss.spreadsheetId, fields: `sheets.properties(${TAB_PROPERTY_FIELDS})` },
        request,
      ),
    );
    const tabs = (data.sheets ?? []).map((sheet) => ({
      sheetId: sheet.properties?.sheetId ?? 0,
      title: sheet.properties?.title ?? '',
      hidden: sheet.properties?.hidden,
      rows: sheet.properties?.gridProperties?.rowCount ?? 0,
      columns: sheet.properties?.gridProperties?.columnCount ?? 0,
    }));
    const lost = lostArea(loss, tabs);
    const answer = {
      changeId: null,
      spreadsheetId: loss.spreadsheetId,
      tool: loss.tool,
      summary: lost.words,
      undoable: false,
      undoneByChangeId: null,
      undoUnavailableReason: null,
      areas: lost.area ? [areaRange(lost.area, 0, lost.area.height, lost.area.width)] : [],
    };
    const { area } = lost;
    if (!area) return answerOf({ ...answer, area: null, window: null, note: lost.words });
    const shape = windowShape(area.height, area.width, offset);
    const range = areaRange(area, shape.top, shape.rows, shape.columns);
    const now = shape.rows > 0 ? await readWindow(context, loss.spreadsheetId, range) : [];
    const cleared = loss.tool === 'clear_range';
    // Deleted cells have no "after" at all; cleared ones are empty.
    const window = buildWindow(area, shape, range, cleared, (row, column) => {
      const before = cellOf(now[row]?.[column]);
      return { before, after: '', changed: before !== '', changedSince: false };
    });
    return answerOf({ ...answer, area: 0, window, note: null });
  }
}

interface Shape {
  /** Rows from the area's top. */
  top: number;
  rows: number;
  columns: number;
  nextOffset: number | null;
  columnsCut: boolean;
}

/** The window at `offset` rows into an area: at most WINDOW_CELLS cells, WINDOW_COLUMNS wide. */
function windowShape(height: number, width: number, offset: number): Shape {
  if (offset > 0 && offset >= height)
    throw new ToolError(`offset ${offset} is past the area's ${height} rows.`);
  const columns = Math.min(width, WINDOW_COLUMNS);
  const rows = Math.min(height - offset, WINDOW_ROWS, Math.floor(WINDOW_CELLS / Math.max(1, columns)));
  return {
    top: offset,
    rows,
    columns,
    nextOffset: offset + rows < height ? offset + rows : null,
    columnsCut: width > columns,
  };
}

function buildWindow(
  area: Pick<ChangeArea, 'top' | 'left' | 'height' | 'width' | 'wrote'>,
  shape: Shape,
  range: string,
  /** The window's cells are in the spreadsheet (else taken away, or not read): `after` is null. */
  present: boolean,
  at: (
    row: number,
    column: number,
  ) => { before: Cell | null; after: Cell | null; changed: boolean; changedSince: boolean },
): Window {
  const window: Window = {
    range,
    top: area.top + shape.top,
    left: area.left,
    areaRows: area.height,
    areaColumns: area.width,
    before: [],
    after: present ? [] : null,
    changed: [],
    changedSince: [],
    wrote: area.wrote ?? null,
    nextOffset: shape.nextOffset,
    columnsCut: shape.columnsCut,
  };
  for (let row = 0; row < shape.rows; row++) {
    const before: Array<Cell | null> = [];
    const after: Array<Cell | null> = [];
    for (let column = 0; column < shape.columns; column++) {
      const cell = at(row, column);
      before.push(bounded(cell.before));
      after.push(bounded(cell.after));
      if (cell.changed) window.changed.push([row, column]);
      if (cell.changedSince) window.changedSince.push([row, column]);
    }
    window.before.push(before);
    window.after?.push(after);
  }
  return window;
}

/** The A1 range of `rows` rows from `top` (rows into the area) and its first `columns` columns. */
function areaRange(
  area: Pick<ChangeArea, 'sheet' | 'top' | 'left'>,
  top: number,
  rows: number,
  columns: number,
) {
  const first = area.top + top + 1;
  const right = columnLetters(area.left + Math.max(1, columns) - 1);
  return rangeOnSheet(
    area.sheet,
    `${columnLetters(area.left)}${first}:${right}${first + Math.max(1, rows) - 1}`,
  );
}

const cellOf = (value: unknown): Cell =>
  typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string' ? value : '';

function bounded<T extends Cell | null>(cell: T): T {
  return (
    typeof cell === 'string' && cell.length > CELL_CHARACTERS
      ? `${cell.slice(0, CELL_CHARACTERS - 1)}…`
      : cell
  ) as T;
}

type Tab = {
  sheetId: number;
  title: string;
  hidden?: boolean | null | undefined;
  rows: number;
  columns: number;
};

/**
 * What a destructive call would take: the cells of the range cleared, the rows or columns deleted,
 * or the whole tab, bounded by the tab's grid. A range that is no tab's cells (a named range) is
 * not shown; `words` says what is.
 */
function lostArea(loss: Loss, tabs: Tab[]): { area?: Omit<ChangeArea, 'before' | 'changed'>; words: string } {
  const need = (value: unknown, name: string) => {
    if (value === undefined) throw new ToolError(`wouldLose of ${loss.tool} needs ${name}.`);
  };
  let tab: Tab | undefined;
  let bounds: {
    startRowIndex?: number;
    endRowIndex?: number;
    startColumnIndex?: number;
    endColumnIndex?: number;
  } = {};
  let words: string;
  if (loss.tool === 'clear_range') {
    need(loss.range, 'range');
    const { sheetTitle, cells } = splitRange(loss.range!);
    const lower = sheetTitle?.toLowerCase();
    tab =
      sheetTitle === undefined
        ? firstVisibleTab(tabs)
        : (tabs.find((each) => each.title === sheetTitle) ??
          tabs.find((each) => each.title.toLowerCase() === lower));
    const parsed = gridBounds(cells);
    if (!tab || !parsed)
      return { words: `The cells of ${loss.range} are not shown: it is no range of a tab.` };
    bounds = parsed;
    words = `clear_range would clear the values of ${rangeOnSheet(tab.title, cells || undefined)}`;
  } else {
    need(loss.sheetId, 'sheetId');
    tab = tabOf(tabs, loss.sheetId!);
    if (loss.tool === 'delete_sheet') words = `delete_sheet would delete the tab "${tab.title}"`;
    else {
      need(loss.dimension, 'dimension');
      need(loss.startIndex, 'startIndex');
      need(loss.endIndex, 'endIndex');
      const rows = loss.dimension === 'ROWS';
      const span = { start: loss.startIndex!, end: loss.endIndex! };
      bounds = rows
        ? { startRowIndex: span.start, endRowIndex: span.end }
        : { startColumnIndex: span.start, endColumnIndex: span.end };
      words = `delete_dimension would delete ${rows ? 'rows' : 'columns'} ${rows ? span.start + 1 : columnLetters(span.start)}–${rows ? span.end : columnLetters(span.end - 1)} of "${tab.title}"`;
    }
  }
  const top = Math.min(bounds.startRowIndex ?? 0, tab.rows);
  const left = Math.min(bounds.startColumnIndex ?? 0, tab.columns);
  return {
    area: {
      sheet: tab.title,
      top,
      left,
      height: Math.max(0, Math.min(bounds.endRowIndex ?? tab.rows, tab.rows) - top),
      width: Math.max(0, Math.min(bounds.endColumnIndex ?? tab.columns, tab.columns) - left),
    },
    words,
  };
}

function answerOf(structuredContent: {
  changeId: string | null;
  tool: string;
  summary: string;
  areas: string[];
  window: Window | null;
  note: string | null;
  [key: string]: unknown;
}) {
  const { window } = structuredContent;
  const text = window
    ? `${structuredContent.changeId ? `Change ${structuredContent.changeId}` : 'Dry run'} (${structuredContent.tool}: ${structuredContent.summary}): ${window.range}, ${window.changed.length} cells altered${window.changedSince.length ? `, ${window.changedSince.length} changed since` : ''}.`
    : (structuredContent.note ?? '');
  return { structuredContent, text };
}
