import { describeChange } from '@sheetgate/proto';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import type { ListedChange } from '../../../journal/change-journal.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { createChangeUndo } from '../../../journal/undo-change.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import {
  changedSinceSentence,
  changeId,
  journalUnavailable,
  notFound,
  off,
} from '../../kit/journal-refusals.ts';
import { defineTool, type ToolDefinition } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { describeToolset, notEnabledClause } from '../../toolsets.ts';

/** Which change an answer is about: its spreadsheet, and what it changed in words. */
function about(change: ListedChange): string {
  return `Spreadsheet ${change.spreadsheetId}, change ${change.id} (${change.tool}: ${describeChange(change)}).`;
}

/** The refusal when no change was found, naming the spreadsheet it was scoped to. */
function notFoundIn(changeId: string | undefined, spreadsheet: string | undefined): ToolError {
  if (!spreadsheet) return notFound(changeId);
  return new ToolError(
    changeId
      ? `Change ${changeId} was not found among your changes to spreadsheet ${spreadsheet} (list_changes lists them; changes are kept for a limited time).`
      : `No change of this credential to spreadsheet ${spreadsheet} was found that can be undone (list_changes lists your changes).`,
  );
}

/**
 * undo_change (docs/design.md §11.8): undo of a change whose cells still hold what it wrote (else
 * refused, naming the cells changed since, unless `force`). An undo is journaled too, so it can be
 * undone in turn.
 */
export function undoChangeTools(deps: ToolDeps): ToolDefinition[] {
  const { journal } = deps;
  const undoChange = journal ? createChangeUndo({ ...deps, journal }) : undefined;
  return [
    defineTool({
      name: 'undo_change',
      toolset: 'core-write',
      title: 'Undo a change',
      description:
        "Undoes a change by any tool (by default this credential's last); refused if changed since, unless force.",
      scope: 'sheets:write',
      journalsItself: true,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
      inputSchema: z.object({
        changeId: changeId.optional(),
        spreadsheetId: spreadsheetId.optional().describe('Without changeId: the last change to it.'),
        force: z.boolean().default(false).describe('Undo over later edits, losing them.'),
        dryRun,
      }),
      outputSchema: z.object({
        undoneChangeId: z.string(),
        spreadsheetId: z.string().describe('The spreadsheet of the change undone.'),
        summary: z.string().describe('What the change undone had changed, in words.'),
        restored: z
          .array(z.string())
          .describe(
            'What undo did (or would do): the ranges restored, the tab recreated, or each action ("delete the chart …").',
          ),
        changedSince: z
          .array(z.string())
          .describe('What changed since the change: cells, a rule, a chart, a tab (undone only with force).'),
        dryRun: dryRunOutput,
        changeId: z.string().optional().describe("The undo's own change journal entry."),
        sheetId: z.number().optional().describe('The recreated tab, when the change deleted one.'),
      }),
      async run(input, { auth, signal }) {
        if (!undoChange) off();
        const outcome = await undoChange(auth, signal, {
          changeId: input.changeId,
          spreadsheetId: input.spreadsheetId,
          force: input.force,
          dryRun: input.dryRun,
        }).catch((error: unknown) => {
          throw journalUnavailable(error);
        });
        switch (outcome.kind) {
          case 'not_found':
            throw notFoundIn(input.changeId, input.spreadsheetId);
          case 'already_undone':
            throw new ToolError(
              `Change ${outcome.change.id} was undone already${outcome.undoneByChangeId ? ` (by change ${outcome.undoneByChangeId})` : ''}. ${about(outcome.change)}`,
            );
          case 'not_undoable':
            throw new ToolError(
              `Change ${outcome.change.id} (${outcome.change.tool}) cannot be undone. ${outcome.reason} ${about(outcome.change)}`,
            );
          case 'target_gone':
            throw new ToolError(`${outcome.message} ${about(outcome.change)}`);
          case 'toolset_not_enabled':
            throw new ToolError(
              `Not undone: undoing change ${outcome.change.id} writes again what ${outcome.tool} did, which is in the toolset ${describeToolset(outcome.toolset)}, ${notEnabledClause(auth.credential, deps.dashboardUrl)}. ${about(outcome.change)}`,
            );
          case 'changed_since':
            throw new ToolError(
              `Not undone: ${changedSinceSentence(outcome.change.id, outcome.cells)} Pass force: true to restore the earlier contents anyway (the later edits are lost). ${about(outcome.change)}`,
            );
        }
        const { change, undoId } = outcome;
        const named = {
          undoneChangeId: change.id,
          spreadsheetId: change.spreadsheetId,
          summary: describeChange(change),
        };
        if (outcome.dryRun)
          return {
            structuredContent: {
              ...named,
              restored: outcome.restored,
              changedSince: outcome.changedSince,
              dryRun: true,
            },
            text: `${about(change)} ${outcome.text}`,
          };
        return {
          structuredContent: {
            ...named,
            restored: outcome.restored,
            changedSince: outcome.changedSince,
            ...(undoId ? { changeId: undoId } : {}),
            ...(outcome.sheetId !== undefined ? { sheetId: outcome.sheetId } : {}),
          },
          text: `${about(change)} ${outcome.text}${input.force && outcome.changedSince.length ? ` Forced: ${amount(outcome.changedSince.length, 'cell')} changed since were replaced too.` : ''}${changeNote(undoId, outcome.undoUnavailable)}`,
        };
      },
    }),
  ];
}
