/**
 * The data of a chart as a person gives it — one block (its first column the labels, every other
 * column a series), several ranges written as one comma-separated string, a block with chosen
 * columns (by header or letter), or a domain range and series ranges, on one tab or several — made
 * into one domain column and series columns of one height, read once from Google and checked
 * before any write: an unknown tab or column, ranges of different heights, a series with no
 * number are refused in a dry run as in the real call.
 *
 * Each series is its own ChartData with one source, which Google allows wherever it is: "domain
 * sources: A1:A5, series1 sources: B1:B5, series2 sources: D6:D10" is its own example of a valid
 * chart (ChartSourceRange.sources,
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/charts#ChartSourceRange).
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { a1Range } from '../../kit/common-schemas.ts';
import { a1Of, type Tab } from '../../kit/rule-grid.ts';

/** Series beyond this many make an unreadable chart and a huge spec; Sheets itself stops near here. */
export const MAX_SERIES = 50;

const name = (max: number) => z.string().min(1).max(max);

/** The ways to give a chart's data, shared by add_chart and update_chart. */
export const chartDataInput = {
  range: a1Range.optional().describe('Several ranges comma-separated.'),
  columns: z
    .array(name(200))
    .min(1)
    .max(MAX_SERIES + 1)
    .optional()
    .describe('With range: headers or letters, the first the labels.'),
  domain: a1Range.optional().describe('The labels: a column range, or with range a header or letter.'),
  series: z.array(name(500)).min(1).max(MAX_SERIES).optional().describe('With domain: ranges as tall as it.'),
};

export interface ChartDataRequest {
  range?: string | undefined;
  columns?: string[] | undefined;
  domain?: string | undefined;
  series?: string[] | undefined;
}

/** What the data needs from the spreadsheet: ranges found on its tabs, and their values read. */
export interface ChartDataSources {
  tabs: readonly Tab[];
  /** The GridRange of an A1 range (refusing an unknown tab, cells off its grid, a chart's own sheet). */
  gridOf(range: string, what: string): { range: sheets_v4.Schema$GridRange; tab: Tab };
  /** The unformatted values of each range, in one read. */
  valuesOf(ranges: string[]): Promise<unknown[][][]>;
}

export interface ChartData {
  /** The domain's tab: where the chart goes by default. */
  tab: Tab;
  domain: sheets_v4.Schema$GridRange;
  series: sheets_v4.Schema$GridRange[];
  /** The domain's first row and the first column right of the data on its tab. */
  beside: { row: number; column: number };
}

/** Refuses a mix of inputs that gives no chart data or two; `keeping` allows a part already charted. */
export function checkDataRequest(request: ChartDataRequest, keeping: boolean): void {
  const { range, columns, domain, series } = request;
  if (range !== undefined && series !== undefined)
    throw new ToolError(
      'give the data as range (with columns to choose among its columns) or as domain and series, not both',
    );
  if (columns !== undefined && range === undefined)
    throw new ToolError(
      'columns chooses among the columns of range: give range too, or give domain and series as ranges',
    );
  if (keeping) return;
  if (range === undefined && domain === undefined && series === undefined)
    throw new ToolError(
      "give the data: range (a block, or several ranges comma-separated), or domain and series, e.g. domain: 'Budget'!A1:A6, series: ['Budget'!E1:E6]",
    );
  if (range === undefined && series === undefined)
    throw new ToolError(
      "domain goes with series (the ranges of values, e.g. series: ['Budget'!E1:E6]) or with range (one of its columns)",
    );
  if (range === undefined && domain === undefined)
    throw new ToolError(
      "series goes with domain: the range of the labels (or x values), e.g. 'Budget'!A1:A6",
    );
}

/**
 * A range string as the ranges it lists: `Budget!A1:A6,Budget!E1:E6` is two. Commas inside a quoted
 * tab name are the name's; a range on a tab whose name has one (`Q1, Q2!A1:B3`) is left whole.
 */
export function rangesIn(text: string, tabs: readonly Tab[]): string[] {
  const { sheetTitle, cells } = splitRange(text);
  const oneTab =
    sheetTitle !== undefined && tabs.some((tab) => tab.title.toLowerCase() === sheetTitle.toLowerCase());
  if (oneTab && gridBounds(cells)) return [text];
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === "'") quoted = !quoted;
    else if (text[index] === ',' && !quoted) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

type Role = 'block' | 'domain' | 'series';

interface Piece {
  role: Role;
  grid: sheets_v4.Schema$GridRange;
  tab: Tab;
  values: unknown[][];
}

interface Column {
  role: Role;
  tab: Tab;
  grid: sheets_v4.Schema$GridRange;
  shown: string;
  header: string | undefined;
  /** The cells below the header. */
  body: unknown[];
  /** The whole range given, for words about it. */
  piece: string;
}

const filled = (cell: unknown) => cell !== undefined && cell !== null && cell !== '';
const height = (grid: sheets_v4.Schema$GridRange) => (grid.endRowIndex ?? 0) - (grid.startRowIndex ?? 0);

/** The domain and series columns the request names, read and checked. */
export async function chartDataOf(
  request: ChartDataRequest,
  headerRow: boolean,
  sources: ChartDataSources,
): Promise<ChartData> {
  const { tabs } = sources;
  const given: Array<{ role: Role; text: string }> =
    request.range !== undefined
      ? rangesIn(request.range, tabs).map((text) => ({ role: 'block', text }))
      : [
          ...rangesIn(request.domain ?? '', tabs).map((text) => ({ role: 'domain' as const, text })),
          ...(request.series ?? []).flatMap((each) =>
            rangesIn(each, tabs).map((text) => ({ role: 'series' as const, text })),
          ),
        ];
  if (given.length === 0) throw new ToolError('the data names no range');
  // A range without a tab name after the first is on the first one's tab, as an anchor cell is.
  const first = sources.gridOf(given[0]!.text, rangeWord(given[0]!.role));
  const located = given.map((each, index) => {
    const onFirstTab =
      index > 0 && splitRange(each.text).sheetTitle === undefined && !each.text.includes('!');
    const text = onFirstTab ? rangeOnSheet(first.tab.title, each.text.trim()) : each.text;
    const found = index === 0 ? first : sources.gridOf(text, rangeWord(each.role));
    return { role: each.role, grid: found.range, tab: found.tab };
  });
  const values = await sources.valuesOf(located.map((each) => a1Of(each.grid, tabs)));
  const pieces = sized(
    located.map((each, index) => ({ ...each, values: values[index] ?? [] })),
    headerRow,
    tabs,
  );
  const columns = pieces.flatMap((piece) => columnsOf(piece, headerRow, tabs));
  const single = pieces.length === 1 && request.columns === undefined && request.domain === undefined;
  const { domain, series } =
    request.range !== undefined ? chosen(columns, request, headerRow, single) : fromRanges(columns);
  for (const each of series)
    if (height(each.grid) !== height(domain.grid))
      throw new ToolError(
        `the domain ${domain.shown} has ${amount(height(domain.grid), 'row')} and the series ${each.shown} ${amount(height(each.grid), 'row')}: the domain and each series need as many rows`,
      );
  if (series.length > MAX_SERIES)
    throw new ToolError(
      `${single ? `${domain.piece} has ${series.length} series columns` : `that is ${series.length} series`}; a chart takes at most ${MAX_SERIES}`,
    );
  const numberless = series.filter((each) => !each.body.some((cell) => typeof cell === 'number'));
  if (single && numberless.length === series.length)
    throw new ToolError(
      `${domain.piece} has no numbers in its series columns (every column after the first): a chart plots numbers`,
    );
  const [without] = numberless;
  if (without)
    throw new ToolError(
      `the series ${without.shown}${without.header ? ` (${quotedName(without.header)})` : ''} has no numbers: a chart plots numbers${request.range === undefined ? '' : '; columns chooses the columns to plot, e.g. ["Month", "Total"]'}`,
    );
  const beside = Math.max(
    ...pieces.filter((piece) => piece.tab === domain.tab).map((piece) => piece.grid.endColumnIndex ?? 0),
  );
  return {
    tab: domain.tab,
    domain: domain.grid,
    series: series.map((each) => each.grid),
    beside: { row: domain.grid.startRowIndex ?? 0, column: beside },
  };
}

const rangeWord = (role: Role) => (role === 'block' ? 'the range' : `the ${role}`);

/**
 * Each range with its ends found: an open end stops at the data (`A:C` as far down as it goes;
 * beside a closed range, as tall as that one); refused when empty or only a header.
 */
function sized(pieces: Piece[], headerRow: boolean, tabs: readonly Tab[]): Piece[] {
  for (const piece of pieces)
    if (!piece.values.some((row) => row.some(filled)))
      throw new ToolError(
        `${a1Of(piece.grid, tabs)} is empty: a chart needs ${headerRow ? 'a header row and ' : ''}rows of values, the labels in the first column and numbers in the others`,
      );
  const closed = pieces.find((piece) => piece.grid.endRowIndex != null);
  const openHeight = closed ? height(closed.grid) : Math.max(...pieces.map((piece) => piece.values.length));
  return pieces.map((piece) => {
    const startRowIndex = piece.grid.startRowIndex ?? 0;
    const startColumnIndex = piece.grid.startColumnIndex ?? 0;
    const endRowIndex = piece.grid.endRowIndex ?? Math.min(startRowIndex + openHeight, piece.tab.rowCount);
    const width = Math.max(...piece.values.map((row) => row.length));
    const grid = {
      sheetId: piece.tab.sheetId,
      startRowIndex,
      endRowIndex,
      startColumnIndex,
      endColumnIndex: piece.grid.endColumnIndex ?? startColumnIndex + width,
    };
    if (piece.values.length <= (headerRow ? 1 : 0) || endRowIndex - startRowIndex < (headerRow ? 2 : 1))
      throw new ToolError(
        `${a1Of(grid, tabs)} has only its header row: a chart needs rows of values below it`,
      );
    return { ...piece, grid };
  });
}

function columnsOf(piece: Piece, headerRow: boolean, tabs: readonly Tab[]): Column[] {
  const start = piece.grid.startColumnIndex ?? 0;
  const count = (piece.grid.endColumnIndex ?? start) - start;
  const rows = height(piece.grid);
  const shownPiece = a1Of(piece.grid, tabs);
  return Array.from({ length: count }, (_, offset) => {
    const grid = { ...piece.grid, startColumnIndex: start + offset, endColumnIndex: start + offset + 1 };
    const cell = (row: number) => piece.values[row]?.[offset];
    const header = headerRow && filled(cell(0)) ? String(cell(0)) : undefined;
    return {
      role: piece.role,
      tab: piece.tab,
      grid,
      shown: a1Of(grid, tabs),
      header,
      body: Array.from({ length: rows - (headerRow ? 1 : 0) }, (_, row) => cell(row + (headerRow ? 1 : 0))),
      piece: shownPiece,
    };
  });
}

/** A block's domain and series: its first column and the others, or the columns chosen. */
function chosen(
  columns: Column[],
  request: ChartDataRequest,
  headerRow: boolean,
  single: boolean,
): { domain: Column; series: Column[] } {
  const picked = request.columns?.map((name) => columnNamed(name, columns, headerRow));
  const domain =
    request.domain !== undefined ? columnNamed(request.domain, columns, headerRow) : (picked ?? columns)[0]!;
  const series =
    picked === undefined
      ? columns.filter((each) => each !== domain)
      : request.domain === undefined
        ? picked.slice(1)
        : picked.filter((each) => each !== domain);
  if (series.length === 0)
    throw new ToolError(
      single
        ? `${domain.piece} has one column: a chart needs the labels (or x values) in the first column and at least one column of numbers beside it`
        : request.columns !== undefined
          ? 'columns names the labels first (unless domain is given), then at least one column of numbers'
          : 'the ranges hold one column: a chart needs the labels (or x values) and at least one column of numbers',
    );
  return { domain, series };
}

/** Domain and series given as ranges: the domain one column, each series column one series. */
function fromRanges(columns: Column[]): { domain: Column; series: Column[] } {
  const domains = columns.filter((each) => each.role === 'domain');
  if (domains.length !== 1)
    throw new ToolError(
      `the domain is one column (the labels or x values); ${domains[0]!.piece} has ${domains.length}`,
    );
  return { domain: domains[0]!, series: columns.filter((each) => each.role === 'series') };
}

/**
 * The column of a block a person names: by its header as written, by its letter, then by its
 * header ignoring case and spaces around it.
 */
function columnNamed(name: string, columns: Column[], headerRow: boolean): Column {
  const wanted = name.trim();
  const letter = (each: Column) => columnLetters(each.grid.startColumnIndex ?? 0);
  const ways: Array<(each: Column) => boolean> = [
    (each) => each.header === name,
    (each) => /^[A-Za-z]{1,3}$/.test(wanted) && letter(each) === wanted.toUpperCase(),
    (each) => each.header?.trim().toLowerCase() === wanted.toLowerCase(),
  ];
  for (const way of ways) {
    const found = columns.filter(way);
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new ToolError(
        `${quotedName(name)} names ${found.length} columns of the range (${found.map((each) => each.shown).join(', ')}); give domain and series as ranges instead`,
      );
  }
  const listedColumns = columns
    .slice(0, 30)
    .map((each) => `${letter(each)}${each.header ? ` ${quotedName(each.header)}` : ''}`)
    .join(', ');
  const more = columns.length > 30 ? `, and ${columns.length - 30} more` : '';
  throw new ToolError(
    `the range has no column ${quotedName(name)}; its columns are ${listedColumns}${more}, named by ${headerRow ? 'header or ' : ''}letter`,
  );
}
