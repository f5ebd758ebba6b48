import { ChangeCredentialKind, changeRanges, describeChange, kindOfCallError } from '@sheetgate/proto';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import type { ChangeJournal, ListedChange } from '../../../journal/change-journal.ts';
import { thirdPerson } from '../../../journal/state/state-words.ts';
import { undoOfSummary } from '../../../journal/state/undo-words.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { spreadsheetId } from '../../kit/common-schemas.ts';
import { journalUnavailable, off } from '../../kit/journal-refusals.ts';
import { defineTool, type ToolDefinition } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

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
  tool: z.string().describe('The tool that made the change: its kind.'),
  spreadsheetId: z.string(),
  summary: z
    .string()
    .describe(
      'What it changed, in words: "wrote 12 cells of Sheet1!A1:C4 (3 formulas)", "deleted the tab "Q3" (1,200 rows, 4,312 cells)".',
    ),
  ranges: z.array(z.string()).describe('The ranges, tabs or objects it changed.'),
  cells: z.number(),
  rows: z.number(),
  undoable: z.boolean().describe('Whether undo_change can undo it now.'),
  undo: z
    .string()
    .describe(
      'How to undo it, saying what undo does ("undo_change {…} deletes the chart …"), or why it cannot be, or when it was undone.',
    ),
  undoUnavailableReason: z.string().nullable(),
  undoesChangeId: z.string().nullable(),
  undoneAt: z.string().nullable(),
  undoneByChangeId: z.string().nullable(),
});

/**
 * What undo_change would do to a change that can be undone, in a few words: the action, as its
 * answer words it ("deletes the chart …", "renames the tab "Totals" back to "Summary"", "puts
 * back the formats of Expenses!A1:D1"). A structure change's words are read back from its summary
 * (undo-words.ts); the other tools' undo is one thing each.
 */
function undoes(change: ListedChange): string {
  const ranges = changeRanges(change.ranges);
  switch (change.tool) {
    case 'write_range':
    case 'write_ranges':
    case 'clear_range':
      return `puts back the values of ${ranges}`;
    case 'append_rows':
      return change.summary.includes('over the cells there')
        ? `puts back the values of ${ranges}`
        : `deletes the rows it appended (${ranges})`;
    case 'set_notes':
      return `puts back the notes of ${ranges}`;
    case 'insert_dimension':
      return `deletes what it inserted (${ranges})`;
    case 'delete_sheet':
      return `recreates the tab ${quotedName(change.ranges[0] ?? '')}`;
    case 'delete_dimension':
      return 'inserts them again with their cells';
    // The Drive-side undos (drive-undo.ts) take back what the tool did rather than restore ranges.
    case 'create_folder':
      return 'moves the folder it made to the trash';
    case 'create_spreadsheet':
    case 'copy_spreadsheet':
    case 'convert_file':
      return 'moves the file it made to the trash';
    case 'copy_sheet_to':
      return `deletes the tab it copied${ranges ? ` (${ranges})` : ''}`;
    case 'share_file':
      return 'takes that access away again';
    case 'update_permission':
      return 'restores the earlier role';
    case 'remove_permission':
      return 'gives the access back';
    case 'add_comment':
      return 'deletes the comment';
    case 'reply_to_comment':
      return 'deletes the reply (and reopens the comment it resolved)';
    case 'resolve_comment':
      return 'reopens the comment (or resolves it again)';
    case 'undo_change':
      return `redoes change ${change.undoesChangeId}${ranges ? ` (${ranges})` : ''}`;
    default: {
      const words = undoOfSummary(change.summary);
      if (words) return words.map(thirdPerson).join('; ');
      return ranges ? `puts back ${ranges} as it was` : 'puts back what it changed';
    }
  }
}

/** Whether and how a change can be undone, or why not, or when it was. */
function undoSentence(change: ListedChange): string {
  if (change.undoneAtMs)
    return `Undone at ${new Date(change.undoneAtMs).toISOString()}${change.undoneByChangeId ? ` by change ${change.undoneByChangeId}` : ''}.`;
  if (!change.undoable)
    return `Cannot be undone. ${change.undoUnavailableReason || 'Undo is not available for it.'}`;
  return `undo_change ${JSON.stringify({ changeId: change.id })} ${undoes(change)}.`;
}

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
    summary: describeChange(change),
    ranges: change.ranges,
    cells: change.cells,
    rows: change.rows,
    undoable: change.undoable && !change.undoneAtMs,
    undo: undoSentence(change),
    undoUnavailableReason: change.undoable ? null : change.undoUnavailableReason,
    undoesChangeId: change.undoesChangeId || null,
    undoneAt: change.undoneAtMs ? new Date(change.undoneAtMs).toISOString() : null,
    undoneByChangeId: change.undoneByChangeId || null,
  };
}

/** Who made a change, as a line of the answer says it. */
function madeBy(change: z.infer<typeof listedChange>): string {
  const { kind, name } = change.credential;
  if (kind === 'dashboard') return 'the person, on the dashboard';
  const what = kind === 'api_key' ? 'API key' : kind === 'app' ? 'app' : 'credential';
  return name ? `${what} ${quotedName(name)}` : `${what} ${change.credential.id} (no longer exists)`;
}

/** list_changes (docs/design.md §11.8): the person's change journal. */
export function listChangesTools(deps: ToolDeps): ToolDefinition[] {
  const { journal } = deps;
  return [
    defineTool({
      name: 'list_changes',
      toolset: 'core-read',
      title: 'List changes',
      description: 'Changes made through Sheetgate, newest first, and how undo_change undoes each.',
      scope: 'sheets:read',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: z.object({
        spreadsheetId: spreadsheetId.optional(),
        // A refinement rather than a regex: tools/list says it by example, not again as a pattern.
        tool: z
          .string()
          .refine((name) => /^[a-z][a-z0-9_]{0,63}$/.test(name), 'a tool name, e.g. write_range')
          .optional()
          .describe('e.g. write_range'),
        credentialId: z.string().max(200).optional().describe('An API key or app client id.'),
        since: z.iso.datetime({ offset: true }).optional(),
        until: z.iso.datetime({ offset: true }).optional(),
        pageSize: z.number().int().min(1).max(100).default(20),
        pageToken: z.string().max(200).optional(),
      }),
      outputSchema: z.object({ changes: z.array(listedChange), nextPageToken: z.string().nullable() }),
      async run(input, { auth }) {
        if (!journal) off();
        await journal.flush();
        let page: Awaited<ReturnType<ChangeJournal['list']>>;
        try {
          page = await journal.list(auth, {
            spreadsheetId: input.spreadsheetId,
            tool: input.tool,
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
            // An entry without a summary is worded from its tool (proto describeChange): named once.
            `- ${change.at}, spreadsheet ${change.spreadsheetId}: ${change.summary} (${change.summary.startsWith(change.tool) ? '' : `${change.tool}, `}by ${madeBy(change)}; change ${change.changeId}). ${change.undo}`,
        );
        return {
          structuredContent: { changes, nextPageToken: page.nextPageToken || null },
          text: changes.length
            ? `${amount(changes.length, 'change')}:\n${lines.join('\n')}${page.nextPageToken ? `\nMore: pass pageToken ${page.nextPageToken}.` : ''}`
            : 'No changes found.',
        };
      },
    }),
  ];
}
