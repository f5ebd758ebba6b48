import type { AuthInfo } from '../auth/auth-info.ts';
import { gridBounds, splitRange } from './a1.ts';
import {
  cellAddress,
  checkRevision,
  type ParsedRevision,
  parseRevision,
  rowList,
  type ValueRender,
} from './revision.ts';
import { ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** A refusal lists at most this many formula cells, then a count of the rest. */
const LISTED_CELLS = 20;

export interface GuardedWrite {
  /** Normalized A1 range the values go to. */
  range: string;
  values: readonly (readonly unknown[])[];
  ifRevision?: string | undefined;
}

/**
 * Checks writes before they are made, so that nothing is written when one is refused
 * (docs/design.md §11): a cell holding a formula is not replaced unless `overwriteFormulas`, and a
 * write with `ifRevision` goes ahead only while its range still holds what that read returned.
 * Both are answered by one values.batchGet of the written ranges in FORMULA rendering; a revision
 * taken in another rendering needs one more batchGet in that rendering. No read at all when
 * neither check applies.
 */
export async function guardWrites(
  { sheets, callGoogle }: ToolDeps,
  options: {
    auth: AuthInfo;
    signal: AbortSignal;
    spreadsheetId: string;
    writes: readonly GuardedWrite[];
    overwriteFormulas: boolean;
    /**
     * The change journal's before-images: the FORMULA read is made for every write (when no check
     * needs it, that is one read more) and answered, per write, as the range Google answered with
     * and the values it held.
     */
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
  // Which writes each rendering is read for.
  const reads = new Map<ValueRender, Set<number>>();
  const need = (render: ValueRender, index: number) => {
    reads.set(render, (reads.get(render) ?? new Set()).add(index));
  };
  for (const [index, revision] of revisions.entries()) {
    if (!options.overwriteFormulas || options.captureBefore) need('FORMULA', index);
    if (revision) need(revision.render, index);
  }

  const problems: string[] = [];
  const formulaCells: string[] = [];
  const before: BeforeImage[] = [];
  for (const [render, indexes] of reads) {
    const asked = [...indexes];
    const { data } = await callGoogle(options.auth.userId, options.signal, (request) =>
      sheets.spreadsheets.values.batchGet(
        {
          spreadsheetId: options.spreadsheetId,
          ranges: asked.map((index) => writes[index]!.range),
          valueRenderOption: render,
        },
        request,
      ),
    );
    asked.forEach((index, position) => {
      const write = writes[index]!;
      const read = data.valueRanges?.[position];
      const current = (read?.values ?? []) as unknown[][];
      if (render === 'FORMULA') before[index] = { range: read?.range ?? write.range, values: current };
      if (render === 'FORMULA' && !options.overwriteFormulas)
        formulaCells.push(...replacedFormulas(read?.range ?? write.range, write.values, current));
      const revision = revisions[index];
      if (revision?.render === render) {
        const problem = revisionProblem(revision, write.range, read?.range ?? write.range, current);
        if (problem) problems.push(problem);
      }
    });
  }
  if (formulaCells.length) {
    const listed = formulaCells.slice(0, LISTED_CELLS).join(', ');
    const more = formulaCells.length > LISTED_CELLS ? ` and ${formulaCells.length - LISTED_CELLS} more` : '';
    problems.unshift(
      `This would replace ${formulaCells.length === 1 ? 'a formula' : `${formulaCells.length} formulas`} (${listed}${more}); pass overwriteFormulas: true to replace them.`,
    );
  }
  if (problems.length) throw new ToolError(`Nothing was written. ${problems.join(' ')}`);
  return options.captureBefore ? before : undefined;
}

/** What a write's range held before it, as a FORMULA read answered it. */
export interface BeforeImage {
  /** The range Google answered with (its tab named, its values start at its top-left). */
  range: string;
  values: unknown[][];
}

/** The zero-based top-left cell of the range Google answered with (its values start there). */
function corner(range: string): { top: number; left: number; sheet: string } {
  const { sheetTitle, cells } = splitRange(range);
  const bounds = gridBounds(cells) ?? {};
  const bang = range.lastIndexOf('!');
  return {
    top: bounds.startRowIndex ?? 0,
    left: bounds.startColumnIndex ?? 0,
    sheet: sheetTitle === undefined || bang === -1 ? '' : `${range.slice(0, bang)}!`,
  };
}

/**
 * Cells the write would change that hold a formula now. A null in the values leaves its cell as
 * it is (Sheets skips it), and writing a formula's own text back replaces nothing.
 */
function replacedFormulas(
  answeredRange: string,
  values: readonly (readonly unknown[])[],
  current: readonly (readonly unknown[])[],
): string[] {
  const { top, left, sheet } = corner(answeredRange);
  const cells: string[] = [];
  for (const [rowIndex, row] of values.entries()) {
    for (const [columnIndex, value] of row.entries()) {
      const now = current[rowIndex]?.[columnIndex];
      if (value === null || typeof now !== 'string' || !now.startsWith('=') || value === now) continue;
      const address = cellAddress(top, left, rowIndex, columnIndex);
      cells.push(cells.length === 0 ? `${sheet}${address}` : address);
    }
  }
  return cells;
}

function revisionProblem(
  revision: ParsedRevision,
  range: string,
  answeredRange: string,
  current: readonly (readonly unknown[])[],
): string | undefined {
  const check = checkRevision(revision, range, current);
  if (check.ok) return undefined;
  if (check.reason === 'other-range')
    return `ifRevision is not a revision of ${range}: pass the revision of a read of this same range from its first row (read_range with offset 0).`;
  const { top } = corner(answeredRange);
  const one = check.rows.length === 1 && check.rows[0]![0] === check.rows[0]![1];
  return `${range} changed since it was read: ${one ? 'row' : 'rows'} ${rowList(check.rows, top + 1)} ${one ? 'differs' : 'differ'} now. Read it again and retry.`;
}
