import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { textOrObject } from '../../kit/text-or-object.ts';

/**
 * read_records' filters: `column op value`, all ANDed. A filter is an object or its text form,
 * `Total >= 100`, `"Due > date" = "n/a"` (a column or value in double quotes, `""` for a quote,
 * when it holds an operator or spaces at its ends).
 *
 * Numbers compare as numbers when both sides read as one (a number cell, or text such as `1,250.5`),
 * else as text, ignoring case. `>`, `>=`, `<`, `<=` against a number match only cells holding a
 * number; against text they order text.
 */
export const FILTER_OPERATORS = ['=', '!=', '>', '>=', '<', '<=', 'contains'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Filter {
  column: string;
  op: FilterOperator;
  value: string;
}

const MALFORMED =
  'write a filter as `column op value` with op one of =, !=, >, >=, <, <=, contains (e.g. `Total >= 100`, `"Due date" = "n/a"`)';

const filterObject = z.object({
  column: z.string().min(1).max(500),
  op: z.enum(FILTER_OPERATORS),
  value: z.union([z.string().max(1_000), z.number(), z.boolean()]),
});

/** A filter as its text; the object form is taken too, as the text that reads back as it. */
export const filterInput = textOrObject(
  filterObject,
  (filter) => filterText({ ...filter, value: String(filter.value) }),
  // Room for the text of the longest object: its column and value quoted, each quote doubled.
  z.string({ error: MALFORMED }).min(1).max(4_100),
);
export type FilterInput = string | z.infer<typeof filterObject>;

export type CellValue = string | number | boolean | null | undefined;

export function parseFilter(input: FilterInput): Filter {
  if (typeof input !== 'string') return { column: input.column, op: input.op, value: String(input.value) };
  const text = input.trim();
  let column: string;
  let rest: string;
  if (text.startsWith('"')) {
    const quoted = readQuoted(text);
    if (!quoted) throw malformed(input, 'its column’s opening quote is not closed');
    column = quoted.text;
    if (column === '') throw malformed(input, 'it names no column');
    rest = text.slice(quoted.end).trimStart();
    const op = leadingOperator(rest);
    if (!op) throw malformed(input, 'no operator follows the column');
    return { column, op: op.op, value: readValue(rest.slice(op.length), input) };
  }
  const found = firstOperator(text);
  if (!found) throw malformed(input, 'it has no operator');
  column = text.slice(0, found.index).trim();
  rest = text.slice(found.index + found.length);
  if (column === '') throw malformed(input, 'it names no column');
  return { column, op: found.op, value: readValue(rest, input) };
}

function malformed(input: string, why: string): ToolError {
  return new ToolError(`cannot read the filter ${JSON.stringify(input)}: ${why}; ${MALFORMED}`);
}

/** A double-quoted string at the start of `text` (`""` is a quote): its text and where it ends. */
function readQuoted(text: string): { text: string; end: number } | undefined {
  let value = '';
  for (let index = 1; index < text.length; index++) {
    const character = text[index]!;
    if (character !== '"') {
      value += character;
      continue;
    }
    if (text[index + 1] === '"') {
      value += '"';
      index++;
      continue;
    }
    return { text: value, end: index + 1 };
  }
  return undefined;
}

function readValue(rest: string, input: string): string {
  const value = rest.trim();
  if (!value.startsWith('"')) return value;
  const quoted = readQuoted(value);
  if (!quoted) throw malformed(input, 'its value’s opening quote is not closed');
  if (value.slice(quoted.end).trim() !== '') throw malformed(input, 'text follows its quoted value');
  return quoted.text;
}

/** Symbol operators, longest first so `>=` is not read as `>`. */
const SYMBOLS: FilterOperator[] = ['!=', '>=', '<=', '=', '>', '<'];
const CONTAINS = /^contains(?=\s|"|$)/i;

function leadingOperator(text: string): { op: FilterOperator; length: number } | undefined {
  const symbol = SYMBOLS.find((candidate) => text.startsWith(candidate));
  if (symbol) return { op: symbol, length: symbol.length };
  const word = CONTAINS.exec(text);
  return word ? { op: 'contains', length: word[0].length } : undefined;
}

/** The first operator in an unquoted filter: a symbol anywhere, or `contains` between spaces. */
function firstOperator(text: string): { op: FilterOperator; index: number; length: number } | undefined {
  for (let index = 0; index < text.length; index++) {
    const symbol = SYMBOLS.find((candidate) => text.startsWith(candidate, index));
    if (symbol) return { op: symbol, index, length: symbol.length };
    if (index > 0 && /\s/.test(text[index - 1]!) && CONTAINS.test(text.slice(index)))
      return { op: 'contains', index, length: 'contains'.length };
  }
  return undefined;
}

/** A filter's text form that parseFilter reads back as the same filter. */
export function filterText(filter: Filter): string {
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  return `${quote(filter.column)} ${filter.op} ${quote(filter.value)}`;
}

/** A number read from a cell or a filter value: a JSON number, or text such as `-1,250.5` or `3e2`. */
export function numberOf(value: CellValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (
    !/^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+|\d*\.\d+|\d{1,3}(?:,\d{3})+\.\d+|\d+\.\d*)(?:e[+-]?\d+)?$/i.test(text)
  )
    return undefined;
  const number = Number(text.replaceAll(',', ''));
  return Number.isFinite(number) ? number : undefined;
}

function textOf(value: CellValue): string {
  if (value === null || value === undefined) return '';
  return String(value).toLowerCase();
}

/** Whether a cell satisfies one filter (the filter's column already picked out). */
export function matches(cell: CellValue, filter: Filter): boolean {
  if (filter.op === 'contains') return textOf(cell).includes(filter.value.toLowerCase());
  const target = numberOf(filter.value);
  const number = numberOf(cell);
  const numeric = target !== undefined && number !== undefined;
  if (filter.op === '=' || filter.op === '!=') {
    const equal = numeric ? number === target : textOf(cell) === filter.value.toLowerCase();
    return filter.op === '=' ? equal : !equal;
  }
  if (target !== undefined && number === undefined) return false;
  const [left, right] = numeric ? [number, target] : [textOf(cell), filter.value.toLowerCase()];
  if (filter.op === '>') return left > right;
  if (filter.op === '>=') return left >= right;
  if (filter.op === '<') return left < right;
  return left <= right;
}

/** The filters resolved against a header: a test of a row, or a tool error naming an unknown column. */
export function rowFilter(
  inputs: readonly FilterInput[],
  columnIndex: (name: string) => number,
): (row: readonly CellValue[]) => boolean {
  const resolved = inputs.map((input) => {
    const filter = parseFilter(input);
    return { filter, index: columnIndex(filter.column) };
  });
  return (row) => resolved.every(({ filter, index }) => matches(row[index], filter));
}
