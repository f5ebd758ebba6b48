import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { splitRange } from '../../kit/a1.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { a1Of, DESTRUCTIVE, dryRunText, readEditTabs, resolveArea } from './edit-grid.ts';

/** find_replace: Edit > Find and replace, in a range, a tab or every tab (docs/design.md §11). */
export function findReplaceTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  return [
    defineTool({
      name: 'find_replace',
      toolset: 'structure',
      title: 'Find and replace',
      description: 'Replaces text in a range, a tab or every tab (regexes: RE2).',
      scope: 'sheets:write',
      annotations: DESTRUCTIVE,
      inputSchema: z.object({
        spreadsheetId,
        find: z.string().min(1).max(1_000),
        replacement: z.string().max(50_000).default(''),
        range: a1Range.optional().describe('Every tab by default.'),
        matchCase: z.boolean().default(false),
        matchEntireCell: z.boolean().default(false),
        searchByRegex: z.boolean().default(false),
        includeFormulas: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({
        scope: z.string(),
        // Google's counts; null in a dry run (Google counts only by replacing).
        occurrencesChanged: z.number().nullable(),
        valuesChanged: z.number().nullable(),
        formulasChanged: z.number().nullable(),
        rowsChanged: z.number().nullable(),
        sheetsChanged: z.number().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.searchByRegex) {
          try {
            new RegExp(input.find);
          } catch (error) {
            throw new ToolError(`find is not a regular expression: ${(error as Error).message}`);
          }
        }
        let where: Pick<sheets_v4.Schema$FindReplaceRequest, 'range' | 'sheetId' | 'allSheets'> = {
          allSheets: true,
        };
        let scope = 'every tab';
        if (input.range !== undefined) {
          const tabs = await readEditTabs(deps, auth.userId, signal, input.spreadsheetId);
          const { tab, area } = resolveArea(tabs, input.range);
          const wholeTab = splitRange(input.range).cells === '';
          where = wholeTab ? { sheetId: tab.sheetId } : { range: area };
          scope = wholeTab ? `the tab ${JSON.stringify(tab.title)}` : a1Of(tab, area);
        }
        const sentence = `replace ${JSON.stringify(input.find)} with ${JSON.stringify(input.replacement)} in ${scope}`;
        if (input.dryRun)
          return {
            structuredContent: {
              scope,
              occurrencesChanged: null,
              valuesChanged: null,
              formulasChanged: null,
              rowsChanged: null,
              sheetsChanged: null,
              dryRun: true,
            },
            text: `${dryRunText(sentence)} find_in_spreadsheet shows where it occurs.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            findReplace: {
              find: input.find,
              replacement: input.replacement,
              ...where,
              matchCase: input.matchCase,
              matchEntireCell: input.matchEntireCell,
              searchByRegex: input.searchByRegex,
              includeFormulas: input.includeFormulas,
            },
          },
        ]);
        const counts = reply.replies?.[0]?.findReplace ?? {};
        const result = {
          scope,
          occurrencesChanged: counts.occurrencesChanged ?? 0,
          valuesChanged: counts.valuesChanged ?? 0,
          formulasChanged: counts.formulasChanged ?? 0,
          rowsChanged: counts.rowsChanged ?? 0,
          sheetsChanged: counts.sheetsChanged ?? 0,
        };
        return {
          structuredContent: result,
          text:
            result.occurrencesChanged === 0
              ? `Found no ${JSON.stringify(input.find)} to replace in ${scope}.`
              : `Replaced ${amount(result.occurrencesChanged, 'occurrence')} of ${JSON.stringify(input.find)} in ${scope}: ${amount(result.valuesChanged, 'value')} and ${amount(result.formulasChanged, 'formula')} in ${amount(result.rowsChanged, 'row')} of ${amount(result.sheetsChanged, 'tab')}.`,
        };
      },
    }),
  ];
}
