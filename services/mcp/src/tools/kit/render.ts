/** Plain-text renderings of tool results, for clients that show `content` rather than structure. */

const MAX_CELL = 200;

export function renderRows(values: unknown[][]): string {
  if (values.length === 0) return '(no values)';
  return values
    .map((row) =>
      row.map((cell) => truncate(cell === null || cell === undefined ? '' : String(cell))).join('\t'),
    )
    .join('\n');
}

function truncate(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL)}…` : text;
}
