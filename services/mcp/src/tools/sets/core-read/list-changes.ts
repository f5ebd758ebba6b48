import { ChangeCredentialKind, kindOfCallError } from '@sheetgate/proto';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import type { ChangeJournal, ListedChange } from '../../../journal/change-journal.ts';
import { amount } from '../../guards/loss-phrases.ts';
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

/** list_changes (docs/design.md §11.8): the person's change journal. */
export function listChangesTools(deps: ToolDeps): ToolDefinition[] {
  const { journal } = deps;
  return [
    defineTool({
      name: 'list_changes',
      toolset: 'core-read',
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
  ];
}
