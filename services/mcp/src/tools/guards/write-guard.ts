import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, rangeOnSheet, splitRange } from '../kit/a1.ts';
import { type CellAt, isAmbiguous, readCellKinds, type StringKind } from '../kit/cell-kinds.ts';
import { isPastGridError } from '../kit/page-window.ts';
import {
  cellAddress,
  checkRevision,
  type ParsedRevision,
  parseRevision,
  revisionCovers,
  revisionRange,
  rowList,
  rowsToCheck,
  type ValueRender,
} from '../kit/revision.ts';
import type { ToolDeps } from '../kit/tool-deps.ts';
import { areaFrom, areaRange, rangeContains, type WrittenArea, writtenArea } from '../kit/written-area.ts';

/** A refusal lists at most this many formula cells, then a count of the rest. */
const LISTED_CELLS = 20;

export interface GuardedWrite {
  /** Normalized A1 range as the caller wrote it: the values start at its top-left cell. */
  range: string;
  values: readonly (readonly unknown[])[];
  ifRevision?: string | undefined;
}

/** What the cells a write changes held before it (docs/design.md §11.8, the change journal). */
export interface BeforeImage {
  /** The area the write changes, on the tab Google resolved (`'Tab'!B2:D5`). */
  range: string;
  /** Its tab's title and zero-based top-left cell. */
  sheet: string;
  top: number;
  left: number;
  /** What each cell held, FORMULA-rendered, from the top-left cell ('' or missing: empty). */
  values: unknown[][];
  /** The kind of each ambiguous string (`=…` text, `#…` errors) among the cells the write replaces. */
  kindOf(row: number, column: number): StringKind | undefined;
}

/**
 * Checks writes before they are made, so that nothing is written when one is refused
 * (docs/design.md §11): a cell holding a formula is not replaced unless `overwriteFormulas`, and a
 * write with `ifRevision` goes ahead only while the cells it changes still hold what that read
 * returned. Every check is made over the area the values cover (written-area.ts), not the range as
 * written: a 2 × 2 block written to `A1` changes A1:B2. One values.batchGet in FORMULA rendering
 * answers both (a revision taken in another rendering costs one more); a range whose start only
 * Google knows (a named range, a bare name) is read as written first, and its area again when the
 * values reach past it. A before-image of cells whose FORMULA rendering does not say their kind
 * (`=…` may be text, `#…` an error value) costs one spreadsheets.get for the kinds
 * (cell-kinds.ts). No read at all when no check applies and no before-image is asked.
 */
export async function guardWrites(
  deps: ToolDeps,
  options: {
    auth: AuthInfo;
    signal: AbortSignal;
    spreadsheetId: string;
    writes: readonly GuardedWrite[];
    overwriteFormulas: boolean;
    /** Answer each write's before-image (the change journal's): the FORMULA read is then always made. */
    captureBefore?: boolean;
  },
): Promise<BeforeImage[] | undefined> {
  const { writes } = options;
  const revisions = writes.map((write) => {
    if (write.ifRevision === undefined) return undefined;
    const parsed = parseRevision(write.ifRevision);
    if (!parsed)
      throw new ToolError(
        `Nothing was written. ifRevision for ${write.range} is not a revision from read_range or read_ranges.`,
      );
    return parsed;
  });
  if (options.overwriteFormulas && !options.captureBefore && revisions.every((each) => !each))
    return undefined;

  const planned = writes.map((write) => writtenArea(write.range, write.values));
  const problems: string[] = [];

  const reads = createReads(deps, options);
  const formulaRanges = writes.map((write, index) => {
    const area = planned[index];
    return area ? areaRange(area) : write.range;
  });
  for (const range of formulaRanges) reads.want('FORMULA', range);
  // What each revision's check reads again: the rows the write changes, as the revision groups
  // them, across the columns the revision's read spanned (its rendering's read).
  const revisionReads: Array<string | undefined> = writes.map(() => undefined);
  const wantRevisionRead = (index: number, area: WrittenArea) => {
    const revision = revisions[index];
    if (!revision || !revisionCovers(revision, area)) return;
    revisionReads[index] = revisionCheckRange(revision, area);
    reads.want(revision.render, revisionReads[index]);
  };
  planned.forEach((area, index) => {
    if (area) wantRevisionRead(index, area);
  });
  await reads.run();

  // A range whose start only Google knew: its area from Google's answer, read again if it reaches past it.
  const areas: WrittenArea[] = writes.map((write, index) => {
    const area = planned[index];
    const answered = reads.answer('FORMULA', formulaRanges[index]!);
    if (area) return { ...area, sheet: sheetOf(answered.range) };
    return areaFrom(answered.range, write.values);
  });
  areas.forEach((area, index) => {
    if (planned[index]) return;
    wantRevisionRead(index, area);
    if (rangeContains(reads.answer('FORMULA', formulaRanges[index]!).range, area)) return;
    formulaRanges[index] = areaRange(area);
    reads.want('FORMULA', formulaRanges[index]);
  });
  await reads.run();

  revisions.forEach((revision, index) => {
    if (!revision) return;
    const read = revisionReads[index];
    const answered = read === undefined ? undefined : reads.answer(revision.render, read);
    const problem = revisionProblem(revision, writes[index]!.range, areas[index]!, answered);
    if (problem) problems.push(problem);
  });

  const images = areas.map((area, index) => {
    const answered = reads.answer('FORMULA', formulaRanges[index]!);
    return { area, values: answered.values, offset: offsetOf(answered.range, area) };
  });
  if (!options.overwriteFormulas) {
    // A cell whose FORMULA rendering starts with `=` is taken for a formula: text that starts
    // with `=` is rare, and telling them apart would cost every refusal a read.
    const formulaCells: string[] = [];
    images.forEach(({ area, values, offset }, index) => {
      forEachReplaced(writes[index]!.values, values, offset, (now, row, column, written) => {
        if (typeof now !== 'string' || !now.startsWith('=') || written === now) return;
        const address = cellAddress(area.top, area.left, row, column);
        formulaCells.push(
          formulaCells.length === 0 && area.sheet ? rangeOnSheet(area.sheet, address) : address,
        );
      });
    });
    if (formulaCells.length) {
      const listed = formulaCells.slice(0, LISTED_CELLS).join(', ');
      const more =
        formulaCells.length > LISTED_CELLS ? ` and ${formulaCells.length - LISTED_CELLS} more` : '';
      problems.unshift(
        `This would replace ${formulaCells.length === 1 ? 'a formula' : `${formulaCells.length} formulas`} (${listed}${more}); pass overwriteFormulas: true to replace them.`,
      );
    }
  }
  if (problems.length) throw new ToolError(`Nothing was written. ${problems.join(' ')}`);
  if (!options.captureBefore) return undefined;

  // The before-image keeps each replaced cell's kind where its rendering does not say it.
  const ambiguous: CellAt[] = [];
  images.forEach(({ area, values, offset }, index) => {
    forEachReplaced(writes[index]!.values, values, offset, (now, row, column) => {
      if (isAmbiguous(now))
        ambiguous.push({ sheet: area.sheet ?? '', row: area.top + row, column: area.left + column });
    });
  });
  const kinds = await readCellKinds(deps, options.auth, options.signal, options.spreadsheetId, ambiguous);
  return images.map(({ area, values, offset }) => ({
    range: areaRange(area),
    sheet: area.sheet ?? '',
    top: area.top,
    left: area.left,
    values: values.slice(offset.rows).map((row) => (row ?? []).slice(offset.columns)),
    kindOf: (row, column) =>
      kinds.of({ sheet: area.sheet ?? '', row: area.top + row, column: area.left + column }),
  }));
}

interface Answered {
  /** The range Google answered with: its tab named, its values starting at its top-left cell. */
  range: string;
  values: unknown[][];
}

/** The values.batchGet reads of a guard, one per rendering, each range asked once. */
function createReads(
  { sheets, callGoogle }: ToolDeps,
  options: { auth: AuthInfo; signal: AbortSignal; spreadsheetId: string },
) {
  const pending = new Map<ValueRender, Set<string>>();
  const answers = new Map<string, Answered>();
  const key = (render: ValueRender, range: string) => `${render}\n${range}`;
  return {
    want(render: ValueRender, range: string) {
      if (answers.has(key(render, range))) return;
      pending.set(render, (pending.get(render) ?? new Set()).add(range));
    },
    async run() {
      const batches = [...pending];
      pending.clear();
      for (const [render, wanted] of batches) {
        const ranges = [...wanted];
        const batchGet = async (asked: string[]) =>
          (
            await callGoogle(options.auth.userId, options.signal, (request) =>
              sheets.spreadsheets.values.batchGet(
                { spreadsheetId: options.spreadsheetId, ranges: asked, valueRenderOption: render },
                request,
              ),
            )
          ).data.valueRanges ?? [];
        let valueRanges: Array<{ range?: string | null; values?: unknown[][] | null } | undefined>;
        try {
          valueRanges = await batchGet(ranges);
        } catch (error) {
          // A write may start below or right of the tab's grid, which it grows; Google refuses a
          // read starting there, and such cells hold nothing. Each range is then read alone.
          if (!isPastGridError(error)) throw error;
          valueRanges = [];
          if (ranges.length > 1)
            for (const range of ranges)
              valueRanges.push(await batchGet([range]).then((read) => read[0], emptyPastGrid));
        }
        ranges.forEach((range, position) => {
          const read = valueRanges[position];
          answers.set(key(render, range), {
            range: read?.range ?? range,
            values: (read?.values ?? []) as unknown[][],
          });
        });
      }
    },
    answer(render: ValueRender, range: string): Answered {
      return answers.get(key(render, range)) ?? { range, values: [] };
    },
  };
}

function emptyPastGrid(error: unknown): undefined {
  if (!isPastGridError(error)) throw error;
  return undefined;
}

/** Calls `visit` for each cell the write replaces (a null leaves its cell as it is). */
function forEachReplaced(
  written: readonly (readonly unknown[])[],
  current: readonly (readonly unknown[])[],
  offset: { rows: number; columns: number },
  visit: (now: unknown, row: number, column: number, written: unknown) => void,
): void {
  for (const [row, line] of written.entries())
    for (const [column, value] of line.entries()) {
      if (value === null) continue;
      visit(current[offset.rows + row]?.[offset.columns + column], row, column, value);
    }
}

/** How far into an answered range's values the area starts (0 unless the range began above or left of it). */
function offsetOf(answeredRange: string, area: WrittenArea): { rows: number; columns: number } {
  const corner = areaFrom(answeredRange, []);
  return { rows: Math.max(0, area.top - corner.top), columns: Math.max(0, area.left - corner.left) };
}

function sheetOf(answeredRange: string): string | undefined {
  return splitRange(answeredRange).sheetTitle;
}

/** The rows of the write's tab a revision's check reads: rowsToCheck, across the revision's columns. */
function revisionCheckRange(revision: ParsedRevision, area: WrittenArea): string {
  const { first, end } = rowsToCheck(revision, area);
  const cells =
    revision.width === null
      ? `${first + 1}:${end}`
      : `${columnLetters(revision.left)}${first + 1}:${columnLetters(revision.left + revision.width - 1)}${end}`;
  return area.sheet === undefined ? cells : rangeOnSheet(area.sheet, cells);
}

/** Why a write's revision does not let it go ahead, or undefined when it does. */
function revisionProblem(
  revision: ParsedRevision,
  range: string,
  area: WrittenArea,
  answered: Answered | undefined,
): string | undefined {
  if (!answered)
    return `ifRevision does not cover ${areaRange(area)}: it vouches for ${revisionRange(revision)} of the tab that was read. Read a range holding every cell this write changes and pass its revision.`;
  const sheet = sheetOf(answered.range) ?? '';
  const check = checkRevision(revision, area, {
    sheet,
    first: areaFrom(answered.range, []).top,
    values: answered.values,
  });
  if (check.ok) return undefined;
  if (check.reason === 'other-tab')
    return `ifRevision is of a read of another tab than ${rangeOnSheet(sheet)}: pass the revision of a read of this tab.`;
  const one = check.rows.length === 1 && check.rows[0]![0] === check.rows[0]![1];
  return `${range} changed since it was read: ${one ? 'row' : 'rows'} ${rowList(check.rows)} ${one ? 'differs' : 'differ'} now. Read it again and retry.`;
}
