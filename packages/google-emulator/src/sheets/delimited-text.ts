/** CSV (RFC 4180) and TSV, as Google imports and exports them. */

export type Delimiter = ',' | '\t';

/** Splits delimited text into rows of fields; quoted fields may hold delimiters, quotes and newlines. */
export function parseDelimited(text: string, delimiter: Delimiter): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (quoted) {
      if (char === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
    } else if (char === '"' && field === '' && delimiter === ',') {
      quoted = true;
    } else if (char === delimiter) {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && input[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += char;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Writes rows as delimited text, padding every row to the widest one as Google's export does. */
export function formatDelimited(rows: string[][], delimiter: Delimiter): string {
  const width = Math.max(0, ...rows.map((row) => row.length));
  const quote = (field: string) => {
    if (delimiter === '\t') return field.replace(/[\t\r\n]/g, ' ');
    return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
  };
  return rows
    .map((row) => Array.from({ length: width }, (_, i) => quote(row[i] ?? '')).join(delimiter))
    .join('\r\n');
}
