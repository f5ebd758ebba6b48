import { z } from 'zod';
import { amount } from '../../guards/loss-phrases.ts';
import { READ } from '../../kit/annotations.ts';
import { spreadsheetId } from '../../kit/common-schemas.ts';
import { formulaImports, MAX_IMPORT_CELLS, readImports } from '../../kit/formula-imports.ts';
import {
  type Evaluation,
  evaluateOffTabs,
  MAX_EVALUATED_FORMULAS,
  RESULT_COLUMNS,
  shownValue,
} from '../../kit/formula-scratch.ts';
import { evaluationRefusal } from '../../kit/formula-text.ts';
import { page, pageBudget } from '../../kit/paging.ts';
import { renderRows } from '../../kit/render.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** A formula's characters: under Google's 50,000 a cell, with room for the wrapping it is evaluated in. */
export const MAX_FORMULA_CHARACTERS = 40_000;

export const evaluatedFormulas = z
  .array(z.string().min(1).max(MAX_FORMULA_CHARACTERS))
  .min(1)
  .max(MAX_EVALUATED_FORMULAS)
  .superRefine((formulas, context) => {
    for (const [index, formula] of formulas.entries()) {
      const refusal = evaluationRefusal(formula);
      if (refusal) context.addIssue({ code: 'custom', path: [index], message: refusal });
    }
  });

const resultOutput = z.object({
  values: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  rows: z.number().describe("The whole result's rows."),
  columns: z.number(),
  error: z.string().optional().describe('The result is this error (#N/A, #REF!, …).'),
  message: z.string().optional().describe("Google's message for the error."),
  cut: z.string().optional().describe('What was left out, and how to narrow the formula.'),
});

/** evaluate_formulas: formulas computed by Google over a spreadsheet, nothing left in it (docs/design.md §11.3). */
export function evaluateFormulaTools(deps: ToolDeps) {
  return [
    defineTool({
      name: 'evaluate_formulas',
      toolset: 'core-read',
      title: 'Evaluate formulas',
      description: 'Computes formulas (QUERY, FILTER, lookups) without writing them; arrays whole.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        formulas: evaluatedFormulas.describe(
          `1-${MAX_EVALUATED_FORMULAS}, each starting with =; ranges name their tab: Orders!A:D.`,
        ),
        imports: formulaImports
          .optional()
          .describe(
            `Other files' ranges (Scores!A:C) as hidden tabs named name, from A1; dates as serials; ≤${MAX_IMPORT_CELLS / 1000}k cells.`,
          ),
      }),
      outputSchema: z.object({
        results: z.array(resultOutput),
        imports: z.array(z.object({ name: z.string(), cells: z.number() })).optional(),
      }),
      async run(input, { auth, signal }) {
        const imported = await readImports(deps, auth.userId, signal, input.imports ?? []);
        const evaluations = await evaluateOffTabs(
          deps,
          auth.userId,
          signal,
          input.spreadsheetId,
          input.formulas,
          imported,
        );
        const budget = pageBudget();
        const results = evaluations.map((evaluation) => answerOf(evaluation, budget));
        const text = results
          .map((result, index) => {
            const head = `${index + 1}. ${clip(input.formulas[index]!)}`;
            if (result.error) return `${head}\n${result.error} ${result.message}`.trimEnd();
            const size = `${amount(result.rows, 'row')} × ${amount(result.columns, 'column')}`;
            return `${head} (${size})\n${renderRows(result.values)}${result.cut ? `\n${result.cut}` : ''}`;
          })
          .join('\n\n');
        if (imported.length === 0) return { structuredContent: { results }, text };
        const imports = imported.map(({ name, cells }) => ({ name, cells }));
        const carried = imports.map(({ name, cells }) => `${name} ${amount(cells, 'cell')}`).join(', ');
        return { structuredContent: { results, imports }, text: `Imported: ${carried}.\n\n${text}` };
      },
    }),
  ];
}

/** A result as answered: its values within what the call may still return, and what was cut, said with the way to the rest. */
function answerOf(evaluation: Evaluation, budget: ReturnType<typeof pageBudget>) {
  const { rows, columns, error } = evaluation;
  if (error)
    return { values: [[error.error]], rows: 1, columns: 1, error: error.error, message: error.message };
  const shown = page(
    evaluation.cells.map((row) => row.map(shownValue)),
    0,
    evaluation.rowsKept,
    budget,
  );
  const values = shown.rows;
  const cutRows = rows > values.length;
  const cutColumns = columns > RESULT_COLUMNS;
  if (!cutRows && !cutColumns) return { values, rows, columns };
  const parts = [
    cutRows ? `the first ${amount(values.length, 'row')} of ${rows.toLocaleString('en-US')}` : '',
    cutColumns ? `the first ${RESULT_COLUMNS} columns of ${columns.toLocaleString('en-US')}` : '',
  ].filter(Boolean);
  const cut = `Shown: ${parts.join(', ')}. For the rest, narrow the formula (fewer columns, a FILTER, QUERY's "limit … offset …") or evaluate fewer formulas at once.`;
  return { values, rows, columns, cut };
}

function clip(formula: string): string {
  const line = formula.replace(/\s+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
