import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { gridBounds, splitRange } from './a1.ts';
import { areaFrom, areaRange, writtenArea } from './written-area.ts';

/**
 * A value write bigger than one Google request should carry (GOOGLE_WRITE_REQUEST_BYTES; Google
 * recommends at most 2 MB a request: developers.google.com/workspace/sheets/api/limits) goes as
 * ordered requests of consecutive rows. Each block of values is cut into pieces of rows at its own
 * place in the grid, and pieces are sent in order, several blocks' pieces sharing a request when
 * they fit; the answers are put back together as one answer per block, as if it had gone whole.
 */

type Rows = readonly (readonly unknown[])[];

export interface ValuePiece {
  /** Which block (write_ranges' data entry) it is of. */
  block: number;
  /** Its first row in the block. */
  offset: number;
  range: string;
  values: Rows;
  bytes: number;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The pieces of blocks of values, each at most `maxBytes` of JSON (a row larger than that alone).
 * A block is cut only where its cells are known from its range — a tab and a cell, or a range
 * holding the values (a bare name is a named range only Google resolves, and a range too small
 * for the values is for Google to refuse as it would the whole write); else it goes whole.
 */
export function piecesOf(blocks: Array<{ range: string; values: Rows }>, maxBytes: number): ValuePiece[] {
  return blocks.flatMap(({ range, values }, block) => {
    const bytes = jsonBytes(values);
    const area = writtenArea(range, values);
    if (bytes <= maxBytes || !area || !holds(range, values))
      return [{ block, offset: 0, range, values, bytes }];
    const pieces: ValuePiece[] = [];
    let start = 0;
    let size = 0;
    const cut = (end: number) => {
      const rows = values.slice(start, end);
      const at = areaRange({ ...area, top: area.top + start, rows: rows.length });
      pieces.push({ block, offset: start, range: at, values: rows, bytes: size });
      start = end;
      size = 0;
    };
    for (const [index, row] of values.entries()) {
      const rowBytes = jsonBytes(row) + 1;
      if (size > 0 && size + rowBytes > maxBytes) cut(index);
      size += rowBytes;
    }
    cut(values.length);
    return pieces;
  });
}

/** Whether `range` is one cell (where the values start) or large enough for them. */
function holds(range: string, values: Rows): boolean {
  const bounds = gridBounds(splitRange(range).cells);
  if (!bounds) return false;
  const span = (start = 0, end?: number | null) => (end == null ? Number.POSITIVE_INFINITY : end - start);
  const rows = span(bounds.startRowIndex ?? 0, bounds.endRowIndex);
  const columns = span(bounds.startColumnIndex ?? 0, bounds.endColumnIndex);
  if (rows === 1 && columns === 1) return true;
  const widest = values.reduce((most, row) => Math.max(most, row.length), 0);
  return rows >= values.length && columns >= widest;
}

/** Consecutive pieces grouped into requests of at most `maxBytes` (a larger piece alone). */
export function requestsOf(pieces: ValuePiece[], maxBytes: number): ValuePiece[][] {
  const requests: ValuePiece[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const piece of pieces) {
    if (size + piece.bytes > maxBytes) {
      requests.push([]);
      size = 0;
    }
    requests.at(-1)!.push(piece);
    size += piece.bytes;
  }
  return requests;
}

/**
 * One answer for a block sent in pieces: the range from the first piece's top-left to the last's
 * bottom-right, the counts added, and the values Google says the cells hold after (each piece's
 * padded to its rows, so that row r of the block is row r of the answer).
 */
export function joinedUpdate(
  pieces: ValuePiece[],
  answers: sheets_v4.Schema$UpdateValuesResponse[],
): sheets_v4.Schema$UpdateValuesResponse {
  if (answers.length === 1 && pieces.length === 1) return answers[0]!;
  const areas = answers.map((answer, index) =>
    areaFrom(answer.updatedRange ?? pieces[index]!.range, pieces[index]!.values),
  );
  const top = Math.min(...areas.map((area) => area.top));
  const left = Math.min(...areas.map((area) => area.left));
  const bottom = Math.max(...areas.map((area) => area.top + Math.max(1, area.rows)));
  const right = Math.max(...areas.map((area) => area.left + Math.max(1, area.columns)));
  const sum = (of: (answer: sheets_v4.Schema$UpdateValuesResponse) => number | null | undefined) =>
    answers.reduce((total, answer) => total + (of(answer) ?? 0), 0);
  const afterValues = answers.flatMap((answer, index) => {
    const rows = pieces[index]!.values.length;
    const after = (answer.updatedData?.values ?? []) as unknown[][];
    return Array.from({ length: rows }, (_, row) => after[row] ?? []);
  });
  return {
    spreadsheetId: answers[0]?.spreadsheetId ?? null,
    updatedRange: areaRange({ sheet: areas[0]?.sheet, top, left, rows: bottom - top, columns: right - left }),
    updatedRows: sum((answer) => answer.updatedRows),
    updatedColumns: Math.max(0, ...answers.map((answer) => answer.updatedColumns ?? 0)),
    updatedCells: sum((answer) => answer.updatedCells),
    ...(answers.some((answer) => answer.updatedData)
      ? { updatedData: { range: null, majorDimension: 'ROWS', values: afterValues } }
      : {}),
  };
}

/**
 * A write sent in several requests that failed after the first: what the requests before it wrote
 * stays written (Google has it), and the caller journals it before saying so.
 */
export class PartlyWritten<A> extends Error {
  readonly answers: A[];
  readonly failure: unknown;

  constructor(answers: A[], failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'PartlyWritten';
    this.answers = answers;
    this.failure = failure;
  }

  /**
   * What the caller throws once it has journaled the part written: a tool error saying what was
   * written (`written`, then `note`, the change's sentence) and why the rest was not, when Google's
   * failure was one; else the failure itself (a cancelled or timed-out call).
   */
  toThrow(written: string, note: string): unknown {
    if (!(this.failure instanceof ToolError)) return this.failure;
    return new ToolError(`${written}; the rest was not written: ${this.failure.message}.${note}`);
  }
}

/**
 * Sends `requests` one after another (each `send` takes its own quota turn), reporting progress
 * after each when there are several; a failure after the first is a PartlyWritten.
 */
export async function sendInOrder<R, A>(
  requests: R[],
  send: (request: R) => Promise<A>,
  progress: (done: number, total: number) => void,
): Promise<A[]> {
  const answers: A[] = [];
  for (const request of requests) {
    try {
      answers.push(await send(request));
    } catch (error) {
      if (answers.length === 0) throw error;
      throw new PartlyWritten(answers, error);
    }
    if (requests.length > 1) progress(answers.length, requests.length);
  }
  return answers;
}
