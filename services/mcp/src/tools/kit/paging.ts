/**
 * Paging of cell values so a read never floods a model's context: at most `limit` rows, and no
 * more than a budget of characters and cells across everything one tool call returns (a few wide
 * rows of long text can be as large as thousands of short ones). A page holds at least one row
 * while the call's budget is not spent, so read_range makes progress however long a row is; once a
 * read_ranges call has spent it, its later ranges get no rows and a notice naming the read_range
 * call for them (else 50 ranges would return 50 rows whatever the budget). What a page says of the
 * rows after it is range-page.ts's.
 */
export const PAGE_CHARACTER_BUDGET = 60_000;
export const PAGE_CELL_BUDGET = 10_000;

/** What one tool call may still return; shared by the ranges of a read_ranges call. */
export interface PageBudget {
  characters: number;
  cells: number;
}

export function pageBudget(): PageBudget {
  return { characters: PAGE_CHARACTER_BUDGET, cells: PAGE_CELL_BUDGET };
}

export interface Page {
  rows: unknown[][];
  /** The offset of the next page, or null when this page reaches the end. */
  nextOffset: number | null;
  /** Rows after this page. */
  remaining: number;
}

export function page(values: unknown[][], offset: number, limit: number, budget: PageBudget): Page {
  const rows: unknown[][] = [];
  const spent = budget.characters <= 0 || budget.cells <= 0;
  for (let index = offset; index < values.length && rows.length < limit; index++) {
    const row = values[index] ?? [];
    const characters = row.reduce<number>((sum, cell) => sum + cellLength(cell) + 1, 0);
    const fits = characters <= budget.characters && row.length <= budget.cells;
    if (!fits && (rows.length > 0 || spent)) break;
    budget.characters -= characters;
    budget.cells -= row.length;
    rows.push(row);
  }
  const end = offset + rows.length;
  return {
    rows,
    nextOffset: end < values.length ? end : null,
    remaining: Math.max(0, values.length - end),
  };
}

function cellLength(cell: unknown): number {
  if (cell === null || cell === undefined) return 0;
  return typeof cell === 'string' ? cell.length : String(cell).length;
}
