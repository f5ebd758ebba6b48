import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, listed, quotedName } from '../../guards/loss-phrases.ts';
import { columnLetters, gridBounds } from '../../kit/a1.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import {
  type CellGrid,
  cellName,
  checkCleanupSize,
  columnsWithData,
  comparisonKey,
  inCase,
  readCells,
  rowsWithData,
  shownValue,
  type TextCase,
  trimmed,
} from './clean-up-cells.ts';
import {
  type Area,
  a1Of,
  DESTRUCTIVE,
  dryRunText,
  heightOf,
  readEditTabs,
  resolveArea,
  type Tab,
} from './edit-grid.ts';

/** A dry run shows this many of the changes it counts. */
const EXAMPLES = 5;

/** Running again changes nothing more: each tool is idempotent. */
const CLEANUP = { ...DESTRUCTIVE, idempotentHint: true };

const change = z.object({ cell: z.string(), before: z.string(), after: z.string() });
/** The text cells a clean-up changes, as trim_whitespace and change_case answer them (textPlan). */
const textCounts = { cellsChanged: z.number(), examples: z.array(change).optional() };

/**
 * Data cleanup in place (docs/design.md §11): remove_duplicates, trim_whitespace and change_case
 * change a range where it is, so its data never travels through the model. Each reads the tabs
 * first (an unknown tab or a range past the grid is refused before Google sees a write), covers at
 * most CLEANUP_MAX_CELLS cells, and sends one batchUpdate, journaled and undone from its footprint
 * (docs/design.md §11.8).
 */
export function cleanUpTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);

  /** The asked range's tab and area, checked, and its A1 name with the tab named. */
  async function locate(userId: string, signal: AbortSignal, id: string, asked: string) {
    const tabs = await readEditTabs(deps, userId, signal, id);
    const { tab, area } = resolveArea(tabs, asked);
    checkCleanupSize(asked, area);
    return { tab, area, range: a1Of(tab, area) };
  }

  /** What `next` would change in the area's text, read now, and how a dry run counts it. */
  async function textPlan(
    userId: string,
    signal: AbortSignal,
    { spreadsheetId }: { spreadsheetId: string },
    { tab, area }: { tab: Tab; area: Area },
    next: (text: string) => string,
  ) {
    const cells = await readCells(deps, userId, signal, spreadsheetId, tab, area);
    const changes = textChanges(cells, area, next);
    return { cells, changes, counted: { cellsChanged: changes.length, examples: shownChanges(changes) } };
  }

  return [
    defineTool({
      name: 'remove_duplicates',
      toolset: 'structure',
      title: 'Remove duplicate rows',
      description: 'Removes rows repeating an earlier row in the compared columns; give whole rows.',
      scope: 'sheets:write',
      annotations: CLEANUP,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        columns: z
          .array(z.string().min(1).max(200))
          .max(50)
          .optional()
          .describe('Letters or header names; all by default.'),
        headerRow: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        compared: z.array(z.string()).describe('The columns compared; empty: every column.'),
        rowsCompared: z.number(),
        duplicatesRemoved: z.number(),
        rowsLeft: z.number(),
        examples: z.array(z.object({ row: z.number(), sameAs: z.number() })).optional(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const { tab, area } = await locate(auth.userId, signal, input.spreadsheetId, input.range);
        const cells = await readCells(deps, auth.userId, signal, input.spreadsheetId, tab, area);
        const header = input.headerRow ? cells[0] : undefined;
        const columns = input.columns && comparedColumns(input.columns, area, header, input.range);
        const compared = (columns ?? []).map((column) => nameOf(column, area, header));
        // The rows and columns past the last holding a value are left out: empty rows would count
        // as duplicates of each other, and a whole tab's empty columns would only lengthen the answer.
        const top = input.headerRow ? 1 : 0;
        const rows = Math.max(0, rowsWithData(cells) - top);
        const width = Math.max(
          columnsWithData(cells),
          ...(columns ?? []).map((c) => c - area.startColumnIndex + 1),
        );
        const data: Area = {
          ...area,
          startRowIndex: area.startRowIndex + top,
          endRowIndex: area.startRowIndex + top + rows,
          endColumnIndex: area.startColumnIndex + width,
        };
        const scope = a1Of(tab, rows > 0 ? data : area);
        const comparing = columns ? `comparing ${listed(compared)}` : 'comparing every column';
        const result = { range: scope, compared, rowsCompared: rows };
        if (rows === 0)
          return {
            structuredContent: {
              ...result,
              duplicatesRemoved: 0,
              rowsLeft: 0,
              ...(input.dryRun ? { dryRun: true } : {}),
            },
            text: `${input.range} holds no rows to compare${input.headerRow ? ' below its header' : ''}. Nothing was changed.`,
          };
        if (input.dryRun) {
          const duplicates = findDuplicates(cells, top, data, columns);
          return {
            structuredContent: {
              ...result,
              duplicatesRemoved: duplicates.length,
              rowsLeft: rows - duplicates.length,
              examples: duplicates.slice(0, EXAMPLES),
              dryRun: true,
            },
            text: dryRunText(
              `remove ${amount(duplicates.length, 'duplicate row')} of ${amount(rows, 'row')} in ${scope}, ${comparing}${examplesOf(duplicates)}`,
            ),
          };
        }
        const comparisonColumns = columns?.map((column) => ({
          sheetId: tab.sheetId,
          dimension: 'COLUMNS',
          startIndex: column,
          endIndex: column + 1,
        }));
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { deleteDuplicates: { range: data, ...(comparisonColumns ? { comparisonColumns } : {}) } },
        ]);
        const removed = reply.replies?.[0]?.deleteDuplicates?.duplicatesRemovedCount ?? 0;
        const left = rows - removed;
        return {
          structuredContent: { ...result, duplicatesRemoved: removed, rowsLeft: left },
          text: `Removed ${amount(removed, 'duplicate row')} from ${scope}, ${comparing}: ${amount(left, 'row')} left${top ? ' below the header' : ''}.`,
        };
      },
    }),

    defineTool({
      name: 'trim_whitespace',
      toolset: 'structure',
      title: 'Trim whitespace',
      description: "Trims a range's text and its inner runs of spaces.",
      scope: 'sheets:write',
      annotations: CLEANUP,
      inputSchema: z.object({ spreadsheetId, range: a1Range, dryRun }),
      outputSchema: z.object({
        range: z.string(),
        ...textCounts,
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const { tab, area, range } = await locate(auth.userId, signal, input.spreadsheetId, input.range);
        if (input.dryRun) {
          const { changes, counted } = await textPlan(auth.userId, signal, input, { tab, area }, trimmed);
          return {
            structuredContent: { range, ...counted, dryRun: true },
            text: dryRunText(`trim ${amount(changes.length, 'cell')} of ${range}${changeExamples(changes)}`),
          };
        }
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { trimWhitespace: { range: area } },
        ]);
        const changed = reply.replies?.[0]?.trimWhitespace?.cellsChangedCount ?? 0;
        return {
          structuredContent: { range, cellsChanged: changed },
          text:
            changed === 0
              ? `Nothing to trim in ${range}.`
              : `Trimmed ${amount(changed, 'cell')} of ${range}.`,
        };
      },
    }),

    defineTool({
      name: 'change_case',
      toolset: 'structure',
      title: 'Change text case',
      description: "Changes the case of a range's text; formulas are left alone.",
      scope: 'sheets:write',
      annotations: CLEANUP,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        case: z.enum(['upper', 'lower', 'title', 'sentence']),
        dryRun,
      }),
      outputSchema: z.object({
        range: z.string(),
        case: z.string(),
        ...textCounts,
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        const { tab, area, range } = await locate(auth.userId, signal, input.spreadsheetId, input.range);
        const toCase = (text: string) => inCase(text, input.case as TextCase);
        const { cells, changes, counted } = await textPlan(auth.userId, signal, input, { tab, area }, toCase);
        const sentence = `${amount(changes.length, 'cell')} of ${range} to ${input.case} case`;
        if (input.dryRun)
          return {
            structuredContent: { range, case: input.case, ...counted, dryRun: true },
            text: dryRunText(`change ${sentence}${changeExamples(changes)}`),
          };
        if (changes.length > 0)
          await batchUpdate(auth.userId, signal, input.spreadsheetId, caseRequests(cells, area, changes));
        return {
          structuredContent: { range, case: input.case, cellsChanged: changes.length },
          text:
            changes.length === 0
              ? `No text in ${range} to change to ${input.case} case.`
              : `Changed ${sentence}.`,
        };
      },
    }),
  ];
}

/** The column indexes compared: names of the header row (when there is one), or letters inside the range. */
function comparedColumns(
  asked: readonly string[],
  area: Area,
  header: CellGrid[number] | undefined,
  range: string,
): number[] {
  const names = Array.from({ length: area.endColumnIndex - area.startColumnIndex }, (_, offset) =>
    String(shownValue(header?.[offset])),
  );
  const columns = asked.map((wanted) => {
    const exact = names.indexOf(wanted);
    const byName =
      exact >= 0
        ? exact
        : names.findIndex((name) => name !== '' && name.toLowerCase() === wanted.trim().toLowerCase());
    if (byName >= 0) return area.startColumnIndex + byName;
    const letter = /^[A-Za-z]{1,3}$/.test(wanted)
      ? gridBounds(`${wanted}:${wanted}`)?.startColumnIndex
      : undefined;
    if (letter !== undefined && letter >= area.startColumnIndex && letter < area.endColumnIndex)
      return letter;
    const headers = names.filter((name) => name !== '').map(quotedName);
    const where = !header
      ? 'a header name (with headerRow: true the first row names the columns)'
      : headers.length > 0
        ? `a header of its first row (${listed(headers.slice(0, 30))}${headers.length > 30 ? ', …' : ''})`
        : 'a header of its first row, which is empty';
    throw new ToolError(`${quotedName(wanted)} is neither a column letter inside ${range} nor ${where}.`);
  });
  return [...new Set(columns)].sort((a, b) => a - b);
}

function nameOf(column: number, area: Area, header: CellGrid[number] | undefined): string {
  const name = header ? String(shownValue(header[column - area.startColumnIndex])) : '';
  return name === '' ? columnLetters(column) : `${columnLetters(column)} (${name})`;
}

/**
 * The rows that repeat an earlier one in the compared columns (every column without them), each
 * with the first it repeats, one-based as the sheet numbers them: what deleteDuplicates removes.
 */
function findDuplicates(
  cells: CellGrid,
  top: number,
  data: Area,
  columns: readonly number[] | undefined,
): Array<{ row: number; sameAs: number }> {
  const corner = data.startRowIndex - top;
  const offsets = columns?.map((column) => column - data.startColumnIndex) ?? [
    ...Array(data.endColumnIndex - data.startColumnIndex).keys(),
  ];
  const first = new Map<string, number>();
  const duplicates: Array<{ row: number; sameAs: number }> = [];
  for (let row = top; row < top + data.endRowIndex - data.startRowIndex; row++) {
    const key = JSON.stringify(offsets.map((column) => comparisonKey(cells[row]?.[column])));
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, row);
    else duplicates.push({ row: corner + row + 1, sameAs: corner + earlier + 1 });
  }
  return duplicates;
}

function examplesOf(duplicates: ReadonlyArray<{ row: number; sameAs: number }>): string {
  if (duplicates.length === 0) return '';
  const shown = duplicates.slice(0, EXAMPLES).map(({ row, sameAs }) => `row ${row} repeats row ${sameAs}`);
  return ` (${listed(shown)}${duplicates.length > EXAMPLES ? ', …' : ''})`;
}

type TextChange = z.infer<typeof change> & { row: number; column: number };

/** Each text cell (as entered: never a formula, number or boolean) that `next` changes. */
function textChanges(cells: CellGrid, area: Area, next: (text: string) => string): TextChange[] {
  const changes: TextChange[] = [];
  for (const [row, line] of cells.entries())
    for (const [column, cell] of (line ?? []).entries()) {
      const text = cell?.userEnteredValue?.stringValue;
      if (text == null) continue;
      const after = next(text);
      if (after !== text)
        changes.push({ cell: cellName(area, row, column), before: text, after, row, column });
    }
  return changes;
}

/** Text an example shows at most: the start of a long text is enough to recognize it. */
const SHOWN_CHARACTERS = 60;
const clipped = (text: string) =>
  text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS)}…` : text;

/** The first changes, as an answer shows them. */
const shownChanges = (changes: readonly TextChange[]) =>
  changes
    .slice(0, EXAMPLES)
    .map(({ cell, before, after }) => ({ cell, before: clipped(before), after: clipped(after) }));

function changeExamples(changes: readonly TextChange[]): string {
  if (changes.length === 0) return '';
  const shown = changes
    .slice(0, EXAMPLES)
    .map(
      ({ cell, before, after }) =>
        `${cell} ${JSON.stringify(clipped(before))} → ${JSON.stringify(clipped(after))}`,
    );
  return `: ${shown.join(', ')}${changes.length > EXAMPLES ? ', …' : ''}`;
}

/**
 * The case changes as updateCells requests of `userEnteredValue` only, one per column and run of
 * rows. Why updateCells rather than the value tools' write: a stringValue is stored as text
 * exactly as given (never parsed, so `007`, `TRUE` or text starting with `=` stay text), the mask
 * leaves formats, notes and validation alone, and the batch is journaled and undone from its
 * footprint like every structure write, its before-image read just before it is sent. A run
 * covers the text and empty cells between two changed ones in its column (written back as they
 * are) and stops at any other cell, so a formula, number or boolean is never written.
 */
function caseRequests(
  cells: CellGrid,
  area: Area,
  changes: readonly TextChange[],
): sheets_v4.Schema$Request[] {
  const after = new Map(changes.map((each) => [`${each.row}:${each.column}`, each.after]));
  const columns = [...new Set(changes.map((each) => each.column))].sort((a, b) => a - b);
  const requests: sheets_v4.Schema$Request[] = [];
  for (const column of columns) {
    let run:
      | { start: number; values: sheets_v4.Schema$CellData[]; pending: sheets_v4.Schema$CellData[] }
      | undefined;
    const close = () => {
      if (!run) return;
      requests.push({
        updateCells: {
          range: {
            sheetId: area.sheetId,
            startRowIndex: area.startRowIndex + run.start,
            endRowIndex: area.startRowIndex + run.start + run.values.length,
            startColumnIndex: area.startColumnIndex + column,
            endColumnIndex: area.startColumnIndex + column + 1,
          },
          rows: run.values.map((value) => ({ values: [value] })),
          fields: 'userEnteredValue',
        },
      });
      run = undefined;
    };
    for (let row = 0; row < heightOf(area); row++) {
      const changed = after.get(`${row}:${column}`);
      const entered = cells[row]?.[column]?.userEnteredValue;
      if (changed !== undefined) {
        const value = { userEnteredValue: { stringValue: changed } };
        if (!run) run = { start: row, values: [], pending: [] };
        run.values.push(...run.pending, value);
        run.pending = [];
      } else if (entered == null || entered.stringValue != null) {
        // Unchanged text or an empty cell: inside a run only if a changed cell follows.
        run?.pending.push(entered == null ? {} : { userEnteredValue: { stringValue: entered.stringValue } });
      } else close();
      if (row === heightOf(area) - 1) close();
    }
  }
  return requests;
}
