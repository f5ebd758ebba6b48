import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { createChangeUndo } from '../../../journal/undo-change.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { dryRun, dryRunOutput } from '../../kit/common-schemas.ts';
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
        "Undoes a change made through Sheetgate (by changeId; by default this credential's last change): restores the cells it replaced, or recreates the tab it deleted. Refused, naming the cells, when they were changed since; force: true restores anyway. The undo is itself a change that can be undone.",
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      inputSchema: z.object({
        changeId: changeId.optional(),
        force: z
          .boolean()
          .default(false)
          .describe('Restore even cells changed since the change, losing those later edits.'),
        dryRun,
      }),
      outputSchema: z.object({
        undoneChangeId: z.string(),
        restored: z.array(z.string()).describe('The ranges restored, or the tab recreated.'),
        changedSince: z
          .array(z.string())
          .describe('Cells changed since the change (restored only with force).'),
        dryRun: dryRunOutput,
        changeId: z.string().optional().describe("The undo's own change journal entry."),
        sheetId: z.number().optional().describe('The recreated tab, when the change deleted one.'),
      }),
      async run(input, { auth, signal }) {
        if (!undoChange) off();
        const outcome = await undoChange(auth, signal, input).catch((error: unknown) => {
          throw journalUnavailable(error);
        });
        switch (outcome.kind) {
          case 'not_found':
            throw notFound(input.changeId);
          case 'already_undone':
            throw new ToolError(
              `Change ${outcome.change.id} was undone already${outcome.undoneByChangeId ? ` (by change ${outcome.undoneByChangeId})` : ''}.`,
            );
          case 'not_undoable':
            throw new ToolError(
              `Change ${outcome.change.id} (${outcome.change.tool}) cannot be undone. ${outcome.reason}`,
            );
          case 'target_gone':
            throw new ToolError(outcome.message);
          case 'toolset_not_enabled':
            throw new ToolError(
              `Not undone: undoing change ${outcome.change.id} writes again what ${outcome.tool} did, which is in the toolset ${describeToolset(outcome.toolset)}, ${notEnabledClause(auth.credential, deps.dashboardUrl)}.`,
            );
          case 'changed_since':
            throw new ToolError(
              `Not undone: ${changedSinceSentence(outcome.change.id, outcome.cells)} Pass force: true to restore the earlier contents anyway (the later edits are lost).`,
            );
        }
        const { change, undoId } = outcome;
        if (outcome.dryRun)
          return {
            structuredContent: {
              undoneChangeId: change.id,
              restored: outcome.restored,
              changedSince: outcome.changedSince,
              dryRun: true,
            },
            text: outcome.text,
          };
        return {
          structuredContent: {
            undoneChangeId: change.id,
            restored: outcome.restored,
            changedSince: outcome.changedSince,
            ...(undoId ? { changeId: undoId } : {}),
            ...(outcome.sheetId !== undefined ? { sheetId: outcome.sheetId } : {}),
          },
          text: `${outcome.text}${input.force && outcome.changedSince.length ? ` Forced: ${amount(outcome.changedSince.length, 'cell')} changed since were replaced too.` : ''}${outcome.undoUnavailable && undoId ? ` Change ${undoId}. ${outcome.undoUnavailable}` : changeNote(undoId)}`,
        };
      },
    }),
  ];
}
