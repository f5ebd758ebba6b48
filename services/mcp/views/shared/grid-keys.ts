/**
 * A grid's keys (WAI-ARIA grid pattern): one cell in the tab order, arrows, Home and End (with
 * Ctrl, the first and last rows) move it.
 */
export function gridKeys(grid: HTMLTableElement): void {
  grid.onkeydown = (event) => {
    const td = (event.target as HTMLElement).closest('td');
    const body = grid.tBodies[0];
    if (!td || !body) return;
    const row = td.parentElement as HTMLTableRowElement;
    const rows = [...body.rows];
    const at = rows.indexOf(row);
    const column = td.cellIndex;
    const last = row.cells.length - 1;
    const target: Record<string, [number, number]> = {
      ArrowUp: [at - 1, column],
      ArrowDown: [at + 1, column],
      ArrowLeft: [at, column - 1],
      ArrowRight: [at, column + 1],
      Home: [event.ctrlKey ? 0 : at, 1],
      End: [event.ctrlKey ? rows.length - 1 : at, last],
    };
    const [toRow, toColumn] = target[event.key] ?? [];
    if (toRow === undefined) return;
    event.preventDefault();
    const to = rows[toRow]?.cells[Math.max(1, toColumn!)];
    if (!to) return;
    td.tabIndex = -1;
    to.tabIndex = 0;
    to.focus();
  };
}
