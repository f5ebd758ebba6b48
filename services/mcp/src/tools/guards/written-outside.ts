import type { AuthInfo } from '../../auth/auth-info.ts';
import type { ToolContext, ToolDefinition } from '../kit/tool-definition.ts';
import { type OutboundAction, writtenOutside } from './outbound-actions.ts';
import type { Person } from './outside-account.ts';
import { NOT_REACHED, type SpreadsheetOwnership } from './spreadsheet-owners.ts';

/**
 * Write tools that write into no spreadsheet someone else could own: what they make is new and the
 * person's (create_spreadsheet, copy_spreadsheet, convert_file, create_folder); trash_file and the
 * permission tools change no content (sharing is an outbound action of its own); undo_change puts
 * back what the spreadsheet held before (and the dashboard's undo, the person, is never asked).
 */
const WRITES_INTO_NONE = new Set([
  'create_spreadsheet',
  'copy_spreadsheet',
  'convert_file',
  'create_folder',
  'trash_file',
  'share_file',
  'update_permission',
  'remove_permission',
  'undo_change',
]);

const COMMENT_TOOLS = new Set(['add_comment', 'reply_to_comment', 'resolve_comment']);

/**
 * The spreadsheet a write tool's call writes into, or undefined when it writes into none: the
 * destination of copy_sheet_to (its source is only read), the file a comment is on (resolving one
 * without a reply adds no text), else the `spreadsheetId`. Every other write tool counts, a new
 * one included, so none slips past the check.
 */
export function spreadsheetWrittenInto(tool: ToolDefinition, input: unknown): string | undefined {
  if (tool.scope !== 'sheets:write' || WRITES_INTO_NONE.has(tool.name)) return undefined;
  const args = (input ?? {}) as Record<string, unknown>;
  if (tool.name === 'resolve_comment' && !(typeof args.content === 'string' && args.content.trim()))
    return undefined;
  const id = args.destinationSpreadsheetId ?? args.spreadsheetId ?? args.fileId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Writing into a spreadsheet owned outside the person's account is an outbound action (issue 37,
 * "please fill in this sheet"): every tool that writes into one gets a `describeOutbound` that
 * learns the file's owners (one Drive read, kept a minute: spreadsheet-owners.ts) and answers the
 * action writtenOutside names, after any of the tool's own. guardOutbound, which wraps this,
 * holds it to the operator's ceiling and marks it in the journal; the consent step asks the
 * credential's choice and the person as for any outbound action.
 */
export function describeWritesOutside(
  tools: ToolDefinition[],
  deps: {
    ownershipOf: SpreadsheetOwnership;
    personOf(auth: AuthInfo, signal: AbortSignal): Promise<Person | undefined>;
  },
): ToolDefinition[] {
  return tools.map((tool) => {
    if (tool.scope !== 'sheets:write' || WRITES_INTO_NONE.has(tool.name)) return tool;
    const own = tool.describeOutbound;
    const verb = COMMENT_TOOLS.has(tool.name) ? 'comments on' : 'writes into';
    return {
      ...tool,
      async describeOutbound(input: unknown, context: ToolContext): Promise<OutboundAction[]> {
        const actions = own ? await own.call(tool, input as never, context) : [];
        const target = spreadsheetWrittenInto(tool, input);
        if (target === undefined) return actions;
        const ownership = await deps.ownershipOf(context.auth, target, context.signal);
        // Not found for the person: the tool's own request says so (spreadsheet-owners.ts). The
        // person's own file: who they are need not be read.
        if (ownership === NOT_REACHED || ownership.owners?.some((owner) => owner.me === true)) return actions;
        const person = await deps.personOf(context.auth, context.signal);
        const written = writtenOutside(ownership, person, verb);
        return written ? [...actions, written] : actions;
      },
    };
  });
}
