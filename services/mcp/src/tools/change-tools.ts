import { ChangeCredentialKind, kindOfCallError } from '@sheetgate/proto';
import { z } from 'zod';
import type { ChangeJournal, ListedChange } from '../journal/change-journal.ts';
import { changeNote } from '../journal/record-change.ts';
import { createChangeUndo } from '../journal/undo-change.ts';
import { dryRun, dryRunOutput, spreadsheetId } from './common-schemas.ts';
import { amount } from './loss-phrases.ts';
import { defineTool, type ToolDefinition, ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';
import { describeToolset, notEnabledClause } from './toolsets.ts';

/** A refusal names at most this many cells changed since, then how many more. */
const NAMED_CELLS = 20;

const changeId = z.string().max(100).describe("A change id from a write tool's answer or list_changes.");

const CREDENTIAL_KIND_NAMES: Record<string, 'api_key' | 'app' | 'dashboard' | 'unknown'> = {
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY]: 'api_key',
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP]: 'app',
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_DASHBOARD]: 'dashboard',
};

const listedChange = z.object({
  changeId: z.string(),
  at: z.string().describe('When, RFC 3339.'),
  credential: z.object({
    kind: z.enum(['api_key', 'app', 'dashboard', 'unknown']),
    id: z.string(),
    name: z.string(),
  }),
  tool: z.string(),
  spreadsheetId: z.string(),
  ranges: z.array(z.string()),
  cells: z.number(),
  rows: z.number(),
  undoable: z.boolean(),
  undoUnavailableReason: z.string().nullable(),
  undoesChangeId: z.string().nullable(),
  undoneAt: z.string().nullable(),
  undoneByChangeId: z.string().nullable(),
});

function shown(change: ListedChange): z.infer<typeof listedChange> {
  return {
    changeId: change.id,
    at: new Date(change.occurredAtMs).toISOString(),
    credential: {
      kind: CREDENTIAL_KIND_NAMES[change.credentialKind] ?? 'unknown',
      id: change.credentialId,
      name: change.credentialName,
    },
    tool: change.tool,
    spreadsheetId: change.spreadsheetId,
    ranges: change.ranges,
    cells: change.cells,
    rows: change.rows,
    undoable: change.undoable && !change.undoneAtMs,
    undoUnavailableReason: change.undoable ? null : change.undoUnavailableReason,
    undoesChangeId: change.undoesChangeId || null,
    undoneAt: change.undoneAtMs ? new Date(change.undoneAtMs).toISOString() : null,
    undoneByChangeId: change.undoneByChangeId || null,
  };
}

function off(): never {
  throw new ToolError(
    'The change journal is off on this Sheetgate server: there is nothing to list or undo.',
  );
}

const notFound = (id: string | undefined) =>
  new ToolError(
    id
      ? `Change ${id} was not found among your changes (list_changes lists them; changes are kept for a limited time).`
      : 'No change of this credential was found that can be undone (list_changes lists your changes).',
  );

/**
 * list_changes and undo_change (docs/design.md §11.8): the person's change journal, and undo of a
 * change whose cells still hold what it wrote (else refused, naming the cells changed since,
 * unless `force`). An undo is journaled too, so it can be undone in turn.
 */
export function changeTools(deps: ToolDeps): ToolDefinition[] {
  const { journal } = deps;
  const undoChange = journal ? createChangeUndo({ ...deps, journal }) : undefined;

  return [
    defineTool({
      name: 'list_changes',
      title: 'List changes',
      description:
        "Lists the changes made through Sheetgate to the person's spreadsheets, newest first: when, by which API key or app, which tool, ranges and cell counts, and whether undo_change can undo each. Filter by spreadsheet, credential or time; paged.",
      scope: 'sheets:read',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: z.object({
        spreadsheetId: spreadsheetId.optional(),
        credentialId: z.string().max(200).optional().describe('An API key id or an app client id.'),
        since: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; changes at or after it.'),
        until: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; changes before it.'),
        pageSize: z.number().int().min(1).max(100).default(20),
        pageToken: z.string().max(200).optional().describe("The previous answer's nextPageToken."),
      }),
      outputSchema: z.object({ changes: z.array(listedChange), nextPageToken: z.string().nullable() }),
      async run(input, { auth }) {
        if (!journal) off();
        await journal.flush();
        let page: Awaited<ReturnType<ChangeJournal['list']>>;
        try {
          page = await journal.list(auth, {
            spreadsheetId: input.spreadsheetId,
            credentialId: input.credentialId,
            since: input.since ? new Date(input.since) : undefined,
            until: input.until ? new Date(input.until) : undefined,
            pageSize: input.pageSize,
            pageToken: input.pageToken,
          });
        } catch (error) {
          if (kindOfCallError(error) === 'invalid_argument')
            throw new ToolError('pageToken is not one list_changes answered.');
          throw journalUnavailable(error);
        }
        const changes = page.changes.map(shown);
        const lines = changes.map(
          (change) =>
            `${change.changeId} ${change.at} ${change.tool} ${change.ranges.join(', ')} (${amount(change.cells, 'cell')}) by ${change.credential.name || change.credential.kind}${change.undoneAt ? ' — undone' : change.undoable ? '' : ' — cannot be undone'}`,
        );
        return {
          structuredContent: { changes, nextPageToken: page.nextPageToken || null },
          text: changes.length
            ? `${amount(changes.length, 'change')}:\n${lines.join('\n')}${page.nextPageToken ? `\nMore: pass pageToken ${page.nextPageToken}.` : ''}`
            : 'No changes found.',
        };
      },
    }),

    defineTool({
      name: 'undo_change',
      title: 'Undo a change',
      description:
        "Undoes a change made through Sheetgate (by changeId; by default this credential's last change): restores the cells it replaced, or recreates the tab it deleted. Refused, naming the cells, when they were changed since; force: true restores anyway. The undo is itself a change that can be undone.",
      scope: 'sheets:write',
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
          text: `${outcome.text}${input.force && outcome.changedSince.length ? ` Forced: ${amount(outcome.changedSince.length, 'cell')} changed since were replaced too.` : ''}${changeNote(undoId)}`,
        };
      },
    }),
  ];
}

/** Auth unreachable: said to the model as something to retry, not as an unexpected failure. */
function journalUnavailable(error: unknown): unknown {
  return kindOfCallError(error) === 'unavailable'
    ? new ToolError('The change journal cannot be reached right now; nothing was changed. Try again shortly.')
    : error;
}

/**
 * "these 3 were changed since change …: Sheet1!A2, …" — at most NAMED_CELLS named, then how many
 * more: the refusal's words for undo_change and the dashboard alike.
 */
export function changedSinceSentence(changeId: string, cells: string[]): string {
  const named = cells.slice(0, NAMED_CELLS).join(', ');
  const more = cells.length > NAMED_CELLS ? ` and ${cells.length - NAMED_CELLS} more` : '';
  return `${cells.length === 1 ? 'this was' : `these ${cells.length} were`} changed since change ${changeId}: ${named}${more}.`;
}

/**
 * Every other write tool journaled without undo (docs/design.md §11.8): a successful call that was
 * not a dry run records who changed which spreadsheet with which tool, and says undo is not
 * available for it. Tools that journal themselves are left as they are.
 */
export function journalOtherWrites(
  tools: ToolDefinition[],
  journal: ChangeJournal | undefined,
): ToolDefinition[] {
  if (!journal) return tools;
  return tools.map((tool) => {
    if (tool.scope !== 'sheets:write' || SELF_JOURNALED.has(tool.name)) return tool;
    return {
      ...tool,
      async run(input, context) {
        const output = await tool.run(input, context);
        const args = input as { dryRun?: boolean; spreadsheetId?: unknown; fileId?: unknown };
        if (args.dryRun !== true && output.structuredContent.dryRun !== true) {
          // The file named in the call, else the one it made (create_spreadsheet, copy_spreadsheet).
          const made = output.structuredContent;
          const target =
            [args.spreadsheetId, args.fileId, made.spreadsheetId, made.fileId, made.id].find(
              (value): value is string => typeof value === 'string',
            ) ?? '';
          journal.record(context.auth, {
            tool: tool.name,
            spreadsheetId: target.slice(0, 200),
            ranges: [],
            cells: 0,
            rows: 0,
            undoUnavailableReason: `Undo is not available for ${tool.name}: Sheetgate records that it ran, not what it replaced.`,
          });
        }
        return output;
      },
    };
  });
}

/** Write tools that journal their own changes with what undo needs. */
const SELF_JOURNALED = new Set([
  'write_range',
  'write_ranges',
  'append_rows',
  'clear_range',
  'set_notes',
  'delete_sheet',
  'delete_dimension',
  'undo_change',
]);
