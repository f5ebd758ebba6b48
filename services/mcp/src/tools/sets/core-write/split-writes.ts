import type { sheets_v4 } from 'googleapis';
import type { InsertedRows } from '../../../journal/change-payloads.ts';
import { changeNote, recordValueChange } from '../../../journal/record-change.ts';
import { DEFAULT_GOOGLE_WRITE_REQUEST_BYTES } from '../../../settings.ts';
import { amount } from '../../guards/loss-phrases.ts';
import type { ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import {
  joinedUpdate,
  PartlyWritten,
  piecesOf,
  requestsOf,
  sendInOrder,
  type ValuePiece,
} from '../../kit/value-parts.ts';
import { cellsIn } from '../../kit/write-limits.ts';
import { areaFrom, areaRange, valuesExtent } from '../../kit/written-area.ts';

/**
 * A write of at least this many cells tells the client when it starts and when Google has it
 * (progress); a smaller one is answered before a progress bar could show anything. A write sent
 * in several requests tells after each.
 */
export const LARGE_WRITE_CELLS = 5_000;

type Rows = readonly (readonly unknown[])[];
type Cells = (string | number | boolean | null)[][];

/** Rows of one block that reached Google before a later request failed. */
export interface BlockWritten {
  block: number;
  values: Rows;
  /** What Google said the cells hold after (includeValuesInResponse), row for row. */
  after: unknown[][] | undefined;
  range: string;
}

/** The change journal entry of the part of a write done, from what was written; undefined for none. */
export type PartChange = Omit<Parameters<typeof recordValueChange>[2], 'spreadsheetId'> | undefined;

interface WriteInput {
  spreadsheetId: string;
  valueInputOption: 'USER_ENTERED' | 'RAW';
}

/** What the progress of a write that goes in one request says, before and after. */
interface Words {
  start: string;
  done: string;
}

/**
 * The value writes of write_range, write_ranges and append_rows, sent as Google should carry them:
 * one request when the values fit GOOGLE_WRITE_REQUEST_BYTES (as before), else ordered requests
 * of consecutive rows, each its own quota turn (callGoogle), with progress after each, answered as
 * one. A write that fails after its first request has written part: that part is journaled as a
 * change of its own (`partChange`) and the tool error says what was written and what was not.
 */
export function splitWrites(
  deps: ToolDeps,
  afterImages: { includeValuesInResponse?: boolean; responseValueRenderOption?: 'FORMULA' },
) {
  const { sheets, callGoogle, journal } = deps;
  const maxBytes = deps.googleWriteRequestBytes ?? DEFAULT_GOOGLE_WRITE_REQUEST_BYTES;

  function progressOf(context: ToolContext, cells: number, requests: number, words: Words | undefined) {
    if (requests > 1)
      context.progress(0, requests, `Writing ${amount(cells, 'cell')} in ${amount(requests, 'request')}`);
    else if (words && cells >= LARGE_WRITE_CELLS) context.progress(0, 1, words.start);
    return {
      after: (done: number) =>
        context.progress(done, requests, `Wrote ${done} of ${amount(requests, 'request')}`),
      end: () => {
        if (requests === 1 && words && cells >= LARGE_WRITE_CELLS) context.progress(1, 1, words.done);
      },
    };
  }

  /** Journals what a failed write wrote, and the error that says so (rows of all written). */
  function partlyDone(
    context: ToolContext,
    input: WriteInput,
    failure: PartlyWritten<unknown>,
    written: { rows: number; of: number; range: string },
    change: PartChange,
  ): unknown {
    const changeId =
      journal && change
        ? recordValueChange(journal, context.auth, { ...change, spreadsheetId: input.spreadsheetId })
        : undefined;
    return failure.toThrow(
      `Wrote ${amount(written.rows, 'row')} of ${written.of} (${written.range}) before Google failed`,
      changeNote(changeId),
    );
  }

  async function updateRequest(
    context: ToolContext,
    input: WriteInput,
    range: string,
    values: Rows,
  ): Promise<sheets_v4.Schema$UpdateValuesResponse> {
    const { data } = await callGoogle(context.auth.userId, context.signal, (request) =>
      sheets.spreadsheets.values.update(
        {
          spreadsheetId: input.spreadsheetId,
          range,
          valueInputOption: input.valueInputOption,
          ...afterImages,
          requestBody: { range, majorDimension: 'ROWS', values: values as Cells },
        },
        request,
      ),
    );
    return data;
  }

  return {
    /** values.update of `values` at `range`. */
    async update(
      context: ToolContext,
      input: WriteInput,
      range: string,
      values: Rows,
      partChange: (written: BlockWritten) => PartChange,
    ): Promise<sheets_v4.Schema$UpdateValuesResponse> {
      const pieces = piecesOf([{ range, values }], maxBytes);
      const progress = progressOf(context, cellsIn(values), pieces.length, undefined);
      try {
        const answers = await sendInOrder(
          pieces,
          (piece) => updateRequest(context, input, piece.range, piece.values),
          progress.after,
        );
        return joinedUpdate(pieces, answers);
      } catch (error) {
        if (!(error instanceof PartlyWritten)) throw error;
        const done = pieces.slice(0, error.answers.length);
        const joined = joinedUpdate(done, error.answers as sheets_v4.Schema$UpdateValuesResponse[]);
        const written = writtenOf(done, joined, 0);
        throw partlyDone(
          context,
          input,
          error,
          { rows: written.values.length, of: values.length, range: written.range },
          partChange(written),
        );
      }
    },

    /** values.batchUpdate of blocks of values (write_ranges' data), each answered as if sent whole. */
    async batchUpdate(
      context: ToolContext,
      input: WriteInput,
      data: Array<{ range: string; values: Rows }>,
      words: Words,
      partChange: (written: BlockWritten[]) => PartChange,
    ): Promise<sheets_v4.Schema$BatchUpdateValuesResponse> {
      const pieces = piecesOf(data, maxBytes);
      const requests = requestsOf(pieces, maxBytes);
      const cells = data.reduce((sum, block) => sum + cellsIn(block.values), 0);
      const progress = progressOf(context, cells, requests.length, words);
      const send = async (request: ValuePiece[]) => {
        const { data: answer } = await callGoogle(context.auth.userId, context.signal, (options) =>
          sheets.spreadsheets.values.batchUpdate(
            {
              spreadsheetId: input.spreadsheetId,
              requestBody: {
                valueInputOption: input.valueInputOption,
                ...afterImages,
                data: request.map((piece) => ({
                  range: piece.range,
                  majorDimension: 'ROWS',
                  values: piece.values as Cells,
                })),
              },
            },
            options,
          ),
        );
        return answer;
      };
      const joinAll = (answers: sheets_v4.Schema$BatchUpdateValuesResponse[]) => {
        const sent = requests.slice(0, answers.length).flat();
        const perPiece = answers.flatMap((answer, index) =>
          requests[index]!.map((_, at) => answer.responses?.[at] ?? {}),
        );
        return data.flatMap((_, block) => {
          const own = sent.flatMap((piece, index) => (piece.block === block ? [index] : []));
          if (own.length === 0) return [];
          return [
            {
              block,
              pieces: own.map((index) => sent[index]!),
              update: joinedUpdate(
                own.map((index) => sent[index]!),
                own.map((index) => perPiece[index]!),
              ),
            },
          ];
        });
      };
      try {
        const answers = await sendInOrder(requests, send, progress.after);
        progress.end();
        if (answers.length === 1) return answers[0]!;
        return {
          spreadsheetId: input.spreadsheetId,
          totalUpdatedCells: answers.reduce((sum, answer) => sum + (answer.totalUpdatedCells ?? 0), 0),
          responses: joinAll(answers).map((joined) => joined.update),
        };
      } catch (error) {
        if (!(error instanceof PartlyWritten)) throw error;
        const written = joinAll(error.answers as sheets_v4.Schema$BatchUpdateValuesResponse[]).map((joined) =>
          writtenOf(joined.pieces, joined.update, joined.block),
        );
        const rows = written.reduce((sum, block) => sum + block.values.length, 0);
        const of = data.reduce((sum, block) => sum + block.values.length, 0);
        throw partlyDone(
          context,
          input,
          error,
          { rows, of, range: written.map((block) => block.range).join(', ') },
          partChange(written),
        );
      }
    },

    /**
     * values.append with INSERT_ROWS. In several requests: the first rows are appended as Google
     * places them (after the table it finds); then the rows for the rest are inserted below them
     * at once (insertDimension, as INSERT_ROWS inserts whole rows) and filled in order. Appending
     * each part instead would leave where it goes to Google's table detection, which a blank row
     * or leading blank cell in a part would move.
     */
    async append(
      context: ToolContext,
      input: WriteInput,
      range: string,
      values: Rows,
      words: Words,
      partChange: (written: BlockWritten & { insertedRows: InsertedRows }) => PartChange,
    ): Promise<sheets_v4.Schema$AppendValuesResponse> {
      const { auth, signal } = context;
      // Where the rows go is Google's to say: the pieces' ranges are placeholders until it has.
      const slices = piecesOf([{ range: 'A1', values }], maxBytes);
      const progress = progressOf(context, cellsIn(values), slices.length, words);
      const { data: first } = await callGoogle(auth.userId, signal, (request) =>
        sheets.spreadsheets.values.append(
          {
            spreadsheetId: input.spreadsheetId,
            range,
            valueInputOption: input.valueInputOption,
            insertDataOption: 'INSERT_ROWS',
            ...afterImages,
            requestBody: { majorDimension: 'ROWS', values: slices[0]!.values as Cells },
          },
          request,
        ),
      );
      if (slices.length === 1) {
        progress.end();
        return first;
      }
      progress.after(1);
      const corner = areaFrom(first.updates?.updatedRange ?? '', []);
      const width = valuesExtent(values).columns;
      const placed = slices.map((slice) => ({
        ...slice,
        range: areaRange({
          ...corner,
          top: corner.top + slice.offset,
          rows: slice.values.length,
          columns: width,
        }),
      }));
      const answers: sheets_v4.Schema$UpdateValuesResponse[] = [first.updates ?? {}];
      let insertedEnd = corner.top + slices[0]!.values.length;
      try {
        await insertRows(
          context,
          input.spreadsheetId,
          corner.sheet ?? '',
          insertedEnd,
          corner.top + values.length,
        );
        insertedEnd = corner.top + values.length;
        answers.push(
          ...(await sendInOrder(
            placed.slice(1),
            (piece) => updateRequest(context, input, piece.range, piece.values),
            (done) => progress.after(done + 1),
          )),
        );
      } catch (error) {
        const failure = error instanceof PartlyWritten ? error : new PartlyWritten([], error);
        answers.push(...(failure.answers as sheets_v4.Schema$UpdateValuesResponse[]));
        const done = placed.slice(0, answers.length);
        const written = writtenOf(done, joinedUpdate(done, answers), 0);
        const insertedRows = { sheet: corner.sheet ?? '', start: corner.top, end: insertedEnd };
        throw partlyDone(
          context,
          input,
          failure,
          { rows: written.values.length, of: values.length, range: written.range },
          partChange({ ...written, insertedRows }),
        );
      }
      return { ...first, updates: joinedUpdate(placed, answers) };
    },
  };

  /** Inserts rows [start, end) of the tab titled `title` (one read for its sheetId, one batchUpdate). */
  async function insertRows(
    context: ToolContext,
    spreadsheetId: string,
    title: string,
    start: number,
    end: number,
  ) {
    const { auth, signal } = context;
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties(sheetId,title)' }, request),
    );
    const sheetId = data.sheets?.find((sheet) => sheet.properties?.title === title)?.properties?.sheetId ?? 0;
    await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.batchUpdate(
        {
          spreadsheetId,
          requestBody: {
            requests: [
              {
                insertDimension: {
                  range: { sheetId, dimension: 'ROWS', startIndex: start, endIndex: end },
                  inheritFromBefore: true,
                },
              },
            ],
          },
        },
        request,
      ),
    );
  }
}

/** The rows of a block its pieces `done` wrote, with the joined answer's after-values and range. */
function writtenOf(
  done: ValuePiece[],
  joined: sheets_v4.Schema$UpdateValuesResponse,
  block: number,
): BlockWritten {
  const values = done.flatMap((piece) => piece.values);
  return {
    block,
    values,
    after: (joined.updatedData?.values as unknown[][] | undefined) ?? undefined,
    range: joined.updatedRange ?? done[0]?.range ?? '',
  };
}
