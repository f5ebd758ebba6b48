import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { ambiguousCells, cornerOf, valueArea } from '../../../journal/change-payloads.ts';
import { changeNote, recordValueChange } from '../../../journal/record-change.ts';
import { MAX_WRITE_CELLS } from '../../../settings.ts';
import { lossDescriptions } from '../../guards/loss-descriptions.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { guardWrites } from '../../guards/write-guard.ts';
import { gridBounds, normalizeRange, splitRange } from '../../kit/a1.ts';
import { readCellKinds } from '../../kit/cell-kinds.ts';
import {
  a1Range,
  changeIdOutput,
  destructiveWriteOutput,
  dryRun,
  dryRunOutput,
  ifRevision,
  overwriteFormulas,
  rows,
  spreadsheetId,
  valueInput,
} from '../../kit/common-schemas.ts';
import { computedValues } from '../../kit/computed-values.ts';
import { checkWrittenFormulas, formulaErrorsOutput, type WrittenBlock } from '../../kit/formula-errors.ts';
import { gridsBefore, grownClause, grownOutput, tabsGrown } from '../../kit/grid-growth.ts';
import { checkRangeTab, explainRangeRefusals } from '../../kit/range-refusals.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool, type ToolContext, type ToolOutput } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { checkValuesFit } from '../../kit/values-fit.ts';
import { tooManyCellsInAll } from '../../kit/write-limits.ts';
import { areaFrom, areaRange, valuesExtent, writtenArea } from '../../kit/written-area.ts';
import { LARGE_WRITE_CELLS, splitWrites } from './split-writes.ts';

export { LARGE_WRITE_CELLS };

const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const updateOutput = z.object({
  updatedRange: z.string(),
  updatedRows: z.number(),
  updatedColumns: z.number(),
  updatedCells: z.number(),
  dryRun: dryRunOutput,
  changeId: changeIdOutput,
});
/** A write's result: what Google updated, the tabs it grew, the formulas it wrote that evaluate to an error. */
const writeOutput = updateOutput.extend({ ...formulaErrorsOutput, tabsGrown: grownOutput });

function summary(update: sheets_v4.Schema$UpdateValuesResponse | undefined, fallbackRange: string) {
  return {
    updatedRange: update?.updatedRange ?? fallbackRange,
    updatedRows: update?.updatedRows ?? 0,
    updatedColumns: update?.updatedColumns ?? 0,
    updatedCells: update?.updatedCells ?? 0,
  };
}

/** Rows of an answered A1 range (`'Tab'!A1:C4` → 4); undefined for an open one. */
function tableRowCount(range: string): number | undefined {
  const bounds = gridBounds(splitRange(range).cells);
  return bounds?.endRowIndex === undefined ? undefined : bounds.endRowIndex - (bounds.startRowIndex ?? 0);
}

function cellCount(values: readonly (readonly unknown[])[]): number {
  return values.reduce((sum, row) => sum + row.length, 0);
}

/** What a write of `values` to `range` would update, said without writing (nulls are skipped). */
function planned(range: string, values: readonly (readonly unknown[])[]) {
  const area = writtenArea(range, values);
  return {
    updatedRange: area && area.rows > 0 ? areaRange(area) : range,
    updatedRows: values.length,
    updatedColumns: values.reduce((widest, row) => Math.max(widest, row.length), 0),
    updatedCells: values.reduce((sum, row) => sum + row.filter((value) => value !== null).length, 0),
    dryRun: true as const,
  };
}

export function valueWriteTools(deps: ToolDeps) {
  const { sheets, callGoogle, journal } = deps;
  // With the journal on, Google answers each write with what the cells hold after it (FORMULA).
  const afterImages = journal
    ? { includeValuesInResponse: true, responseValueRenderOption: 'FORMULA' as const }
    : {};
  const _batchUpdate = spreadsheetBatchUpdate(deps);
  const writes = splitWrites(deps, afterImages);
  const losses = lossDescriptions(deps);

  /**
   * A value write's answer: its journal entry (when the journal is on and what the write replaced
   * was read) and the errors its formulas evaluate to (kit/formula-errors.ts), folded into the
   * structured result and after the sentence `done`.
   */
  async function answerWrite(
    { auth, signal }: ToolContext,
    input: { spreadsheetId: string; valueInputOption: 'USER_ENTERED' | 'RAW' },
    change: Omit<Parameters<typeof recordValueChange>[2], 'spreadsheetId'> | undefined,
    written: WrittenBlock[],
    result: Record<string, unknown>,
    done: string,
  ): Promise<ToolOutput> {
    const changeId =
      journal && change
        ? recordValueChange(journal, auth, { ...change, spreadsheetId: input.spreadsheetId })
        : undefined;
    const formulas = await checkWrittenFormulas(
      deps,
      auth,
      signal,
      input.spreadsheetId,
      input.valueInputOption,
      written,
    );
    return {
      structuredContent: { ...result, ...formulas.output, ...(changeId ? { changeId } : {}) },
      text: `${done}${formulas.clause}.${changeNote(changeId)}${formulas.list}`,
    };
  }

  /**
   * append_rows with OVERWRITE replaces whatever the rows after the table hold, and where the
   * table ends only Google's own table detection says. So Google is asked with an append of no
   * values (its answer's tableRange names the table; nothing is written), and the values are then
   * written after that table as write_range writes them: through the formula guard, with the
   * before-image the change journal's undo restores. Three requests where one append would do,
   * kept for the mode that overwrites.
   */
  async function overwriteAfterTable(
    input: {
      spreadsheetId: string;
      range: string;
      values: (string | number | boolean | null)[][];
      valueInputOption: 'USER_ENTERED' | 'RAW';
      overwriteFormulas: boolean;
    },
    context: ToolContext,
  ) {
    const { auth, signal } = context;
    const range = normalizeRange(input.range);
    const { data: probe } = await callGoogle(auth.userId, signal, (request) =>
      sheets.spreadsheets.values.append(
        {
          spreadsheetId: input.spreadsheetId,
          range,
          valueInputOption: input.valueInputOption,
          insertDataOption: 'OVERWRITE',
          requestBody: { majorDimension: 'ROWS', values: [] },
        },
        request,
      ),
    );
    const tableRange = probe.tableRange ?? null;
    // Below the table, from its first column; with no table, where the range starts.
    const start = tableRange
      ? cornerOf(tableRange)
      : cornerOf(
          probe.updates?.updatedRange ?? areaRange(writtenArea(range, [[null]]) ?? areaFrom(range, [])),
        );
    const below = tableRange ? { ...start, top: start.top + (tableRowCount(tableRange) ?? 0) } : start;
    const target = areaRange({ ...below, sheet: below.sheet || undefined, ...valuesExtent(input.values) });
    const before = await guardWrites(deps, {
      auth,
      signal,
      spreadsheetId: input.spreadsheetId,
      writes: [{ range: target, values: input.values }],
      overwriteFormulas: input.overwriteFormulas,
      captureBefore: journal !== undefined,
    });
    const data = await writes.update(
      context,
      input,
      target,
      input.values,
      (written) =>
        before?.[0] && {
          tool: 'append_rows',
          areas: [valueArea(before[0], written.values, written.after)],
        },
    );
    const result = { ...summary(data, target), tableRange };
    return answerWrite(
      context,
      input,
      before?.[0] && {
        tool: 'append_rows',
        areas: [valueArea(before[0], input.values, data.updatedData?.values ?? undefined)],
      },
      [{ range: result.updatedRange, values: input.values }],
      result,
      `Appended ${amount(result.updatedRows, 'row')} at ${result.updatedRange}, overwriting what was there`,
    );
  }

  return explainRangeRefusals(deps, [
    defineTool({
      name: 'write_range',
      toolset: 'core-write',
      title: 'Write a range',
      description: 'Writes rows of values into a range, replacing what is there.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: WRITE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        values: rows,
        valueInputOption: valueInput,
        valuesOnly: z
          .boolean()
          .default(false)
          .describe(
            "Write what the formulas compute, not the formulas; an array fills cells from its formula's.",
          ),
        overwriteFormulas,
        ifRevision,
        dryRun,
      }),
      outputSchema: writeOutput,
      async run(input, context) {
        const { auth, signal } = context;
        const range = normalizeRange(input.range);
        if (input.valuesOnly && input.valueInputOption === 'RAW')
          throw new ToolError(
            'valuesOnly computes formulas, which RAW writes as text: leave valueInputOption out.',
          );
        const values = input.valuesOnly
          ? await computedValues(deps, auth.userId, signal, input.spreadsheetId, input.values)
          : input.values;
        checkValuesFit(range, values);
        // A second request is needed: Sheets has no conditional write, so what it would replace is read
        // first; the same read is the change journal's before-image.
        const before = await guardWrites(deps, {
          auth,
          signal,
          spreadsheetId: input.spreadsheetId,
          writes: [{ range, values, ifRevision: input.ifRevision }],
          overwriteFormulas: input.overwriteFormulas,
          captureBefore: journal !== undefined && !input.dryRun,
        });
        if (input.dryRun) {
          const plan = planned(range, values);
          return {
            structuredContent: plan,
            text: `Dry run: would update ${plan.updatedCells} cells in ${range}. Nothing was written.`,
          };
        }
        const grids = await gridsBefore(deps, context, input.spreadsheetId, [writtenArea(range, values)]);
        const data = await writes.update(
          context,
          input,
          range,
          values,
          (written) =>
            before?.[0] && {
              tool: 'write_range',
              areas: [valueArea(before[0], written.values, written.after)],
              raw: input.valueInputOption === 'RAW',
            },
        );
        const result = summary(data, range);
        const grown = tabsGrown(grids, [{ range: result.updatedRange, values }]);
        return answerWrite(
          context,
          input,
          before?.[0] && {
            tool: 'write_range',
            areas: [valueArea(before[0], values, data.updatedData?.values ?? undefined)],
            raw: input.valueInputOption === 'RAW',
          },
          [{ range: result.updatedRange, values }],
          { ...result, ...(grown.length ? { tabsGrown: grown } : {}) },
          `Updated ${result.updatedCells} cells in ${result.updatedRange}${grownClause(grown)}`,
        );
      },
    }),

    defineTool({
      name: 'write_ranges',
      toolset: 'core-write',
      title: 'Write several ranges',
      description: 'Writes several ranges of one spreadsheet in one call.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: WRITE,
      inputSchema: z.object({
        spreadsheetId,
        data: z
          .array(z.object({ range: a1Range, values: rows, ifRevision }))
          .min(1)
          .max(100)
          .superRefine((data, context) => {
            const cells = data.reduce((sum, entry) => sum + cellCount(entry.values), 0);
            if (cells > MAX_WRITE_CELLS)
              context.addIssue({ code: 'custom', message: tooManyCellsInAll(cells) });
          }),
        valueInputOption: valueInput,
        overwriteFormulas,
        dryRun,
      }),
      outputSchema: z.object({
        totalUpdatedCells: z.number(),
        responses: z.array(updateOutput),
        tabsGrown: grownOutput,
        ...formulaErrorsOutput,
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        for (const entry of input.data) checkValuesFit(normalizeRange(entry.range), entry.values);
        // A second request is needed: Sheets has no conditional write, so what it would replace is read
        // first; the same read is the change journal's before-image.
        const before = await guardWrites(deps, {
          auth,
          signal,
          spreadsheetId: input.spreadsheetId,
          captureBefore: journal !== undefined && !input.dryRun,
          writes: input.data.map((entry) => ({
            range: normalizeRange(entry.range),
            values: entry.values,
            ifRevision: entry.ifRevision,
          })),
          overwriteFormulas: input.overwriteFormulas,
        });
        if (input.dryRun) {
          const responses = input.data.map((entry) => planned(normalizeRange(entry.range), entry.values));
          const total = responses.reduce((sum, update) => sum + update.updatedCells, 0);
          return {
            structuredContent: { totalUpdatedCells: total, responses, dryRun: true },
            text: `Dry run: would update ${total} cells in ${responses.length} ranges. Nothing was written.`,
          };
        }
        const cells = input.data.reduce((sum, entry) => sum + cellCount(entry.values), 0);
        const data = input.data.map((entry) => ({
          range: normalizeRange(entry.range),
          majorDimension: 'ROWS',
          values: entry.values,
        }));
        const grids = await gridsBefore(
          deps,
          context,
          input.spreadsheetId,
          data.map((entry) => writtenArea(entry.range, entry.values)),
        );
        const response = await writes.batchUpdate(
          context,
          input,
          data,
          { start: `Writing ${amount(cells, 'cell')} in ${amount(data.length, 'range')}`, done: 'Written' },
          (written) =>
            before && {
              tool: 'write_ranges',
              areas: written.map((block) => valueArea(before[block.block]!, block.values, block.after)),
              raw: input.valueInputOption === 'RAW',
            },
        );
        const responses = (response.responses ?? []).map((update, index) =>
          summary(update, data[index]?.range ?? ''),
        );
        const total =
          response.totalUpdatedCells ?? responses.reduce((sum, update) => sum + update.updatedCells, 0);
        const grown = tabsGrown(
          grids,
          responses.map((update, index) => ({
            range: update.updatedRange,
            values: input.data[index]!.values,
          })),
        );
        return answerWrite(
          context,
          input,
          before && {
            tool: 'write_ranges',
            areas: input.data.map((entry, index) =>
              valueArea(
                before[index]!,
                entry.values,
                response.responses?.[index]?.updatedData?.values ?? undefined,
              ),
            ),
            raw: input.valueInputOption === 'RAW',
          },
          input.data.map((entry, index) => ({
            range: responses[index]?.updatedRange ?? normalizeRange(entry.range),
            values: entry.values,
          })),
          { totalUpdatedCells: total, responses, ...(grown.length ? { tabsGrown: grown } : {}) },
          `Updated ${total} cells in ${responses.length} ranges${grownClause(grown)}`,
        );
      },
    }),

    defineTool({
      name: 'append_rows',
      toolset: 'core-write',
      title: 'Append rows',
      description: 'Appends rows below the table found in the range.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...WRITE, destructiveHint: false, idempotentHint: false },
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range.describe("The table, e.g. 'Orders'!A:F."),
        values: rows,
        valueInputOption: valueInput,
        insertDataOption: z.enum(['INSERT_ROWS', 'OVERWRITE']).default('INSERT_ROWS'),
        overwriteFormulas,
        dryRun,
      }),
      outputSchema: writeOutput.extend({ tableRange: z.string().nullable() }),
      async run(input, context) {
        const range = normalizeRange(input.range);
        if (input.dryRun) {
          await checkRangeTab(deps, context, input.spreadsheetId, range);
          // Where the table ends is known only to Google's append; the dry run says what, not where.
          const plan = { ...planned(range, input.values), updatedRange: range, tableRange: null };
          return {
            structuredContent: plan,
            text: `Dry run: would append ${amount(plan.updatedRows, 'row')} (${plan.updatedCells} cells) after the table in ${range}. Nothing was written.`,
          };
        }
        if (input.insertDataOption === 'OVERWRITE') return overwriteAfterTable(input, context);
        const data = await writes.append(
          context,
          input,
          range,
          input.values,
          { start: `Appending ${amount(input.values.length, 'row')}`, done: 'Appended' },
          (written) => {
            if (!journal) return undefined;
            const corner = { ...cornerOf(written.range), values: [] };
            return {
              tool: 'append_rows',
              areas: [valueArea(corner, written.values, written.after)],
              insertedRows: written.insertedRows,
            };
          },
        );
        const result = { ...summary(data.updates, range), tableRange: data.tableRange ?? null };
        // Inserted rows held nothing: the append replaced nothing, and undo deletes the rows.
        const area = journal
          ? valueArea(
              { ...cornerOf(result.updatedRange), values: [] },
              input.values,
              data.updates?.updatedData?.values ?? undefined,
            )
          : undefined;
        return answerWrite(
          context,
          input,
          area && {
            tool: 'append_rows',
            areas: [area],
            insertedRows: { sheet: area.sheet, start: area.top, end: area.top + input.values.length },
          },
          [{ range: result.updatedRange, values: input.values }],
          result,
          `Appended ${amount(result.updatedRows, 'row')} at ${result.updatedRange}`,
        );
      },
    }),

    defineTool({
      name: 'clear_range',
      toolset: 'core-write',
      title: 'Clear a range',
      description: 'Clears the values of a range (formatting stays).',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: WRITE,
      inputSchema: z.object({ spreadsheetId, range: a1Range, dryRun }),
      outputSchema: z.object({
        clearedRange: z.string(),
        ...destructiveWriteOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const range = normalizeRange(input.range);
        if (input.dryRun) {
          const wouldLose = await losses.clear(input, context);
          return {
            structuredContent: { clearedRange: range, dryRun: true, wouldLose },
            text: `Dry run, nothing was cleared. ${wouldLose ?? `${range} holds no values: clearing it loses nothing.`}`,
          };
        }
        // The change journal's before-image: one FORMULA read of the range before it is cleared, and
        // the kinds of cells whose rendering does not say them (text starting with =: cell-kinds.ts).
        const before = journal
          ? (
              await callGoogle(auth.userId, signal, (request) =>
                sheets.spreadsheets.values.get(
                  { spreadsheetId: input.spreadsheetId, range, valueRenderOption: 'FORMULA' },
                  request,
                ),
              )
            ).data
          : undefined;
        const values = (before?.values ?? []) as unknown[][];
        const corner = cornerOf(before?.range ?? range);
        const kinds = before
          ? await readCellKinds(deps, auth, signal, input.spreadsheetId, ambiguousCells(corner, values))
          : undefined;
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.values.clear(
            { spreadsheetId: input.spreadsheetId, range, requestBody: {} },
            request,
          ),
        );
        const clearedRange = data.clearedRange ?? range;
        let changeId: string | undefined;
        if (journal && kinds) {
          // Only the cells that held something changed: each becomes empty.
          const cleared = values.map((row) => row.map(() => ''));
          changeId = recordValueChange(journal, auth, {
            tool: 'clear_range',
            spreadsheetId: input.spreadsheetId,
            areas: [
              valueArea(
                {
                  ...corner,
                  values,
                  kindOf: (row, column) =>
                    kinds.of({ sheet: corner.sheet, row: corner.top + row, column: corner.left + column }),
                },
                cleared,
                cleared,
              ),
            ],
            ranges: [clearedRange],
          });
        }
        return {
          structuredContent: { clearedRange, ...(changeId ? { changeId } : {}) },
          text: `Cleared ${clearedRange}.${changeNote(changeId)}`,
        };
      },
      describeLoss: (input, context) => losses.clear(input, context),
    }),
  ]);
}
