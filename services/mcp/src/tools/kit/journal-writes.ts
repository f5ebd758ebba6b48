import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import type { ChangeJournal } from '../../journal/change-journal.ts';
import { bounded, MAX_PAYLOAD_BYTES, tooLargeReason } from '../../journal/change-payloads.ts';
import { changeNote } from '../../journal/record-change.ts';
import { keptCellBytes, tooLargeToCompare } from '../../journal/state/state-bounds.ts';
import { capturedChange, runCapturing, type StateCapture } from '../../journal/state/state-capture.ts';
import { changedParts, describeStateChange } from '../../journal/state/state-describe.ts';
import { stateDiff } from '../../journal/state/state-diff.ts';
import type { ToolDefinition } from './tool-definition.ts';

/**
 * Journals every write tool that does not journal itself (docs/design.md §11.8): its call runs
 * inside a state capture, so each `spreadsheets.batchUpdate` it sends keeps what it changed
 * (journal/state/state-capture.ts), and a successful call that was not a dry run is recorded as
 * one change — with what undo needs, or, when nothing could be captured, why undo is not
 * available. Its answer names the change as the tools that journal themselves do: `changeId`
 * (defineTool adds it to the output schema) and the text's last sentence (changeNote). A call
 * that fails after Google accepted one of its batchUpdates is recorded too, and its error names
 * the change. The journal off: the tools are left as they are, and nothing more is read.
 */
export function journalWrites(tools: ToolDefinition[], journal: ChangeJournal | undefined): ToolDefinition[] {
  if (!journal) return tools;
  return tools.map((tool) => {
    if (tool.scope !== 'sheets:write' || tool.journalsItself) return tool;
    return {
      ...tool,
      async run(input, context) {
        const args = input as { dryRun?: boolean; spreadsheetId?: unknown; fileId?: unknown };
        if (args.dryRun === true) return tool.run(input, context);
        const ran = await runCapturing(() => tool.run(input, context));
        const { capture } = ran;
        if ('error' in ran) {
          // A change Google accepted before the call failed is journaled all the same, and the
          // error says so: it is in the person's spreadsheet, and undo_change can take it back.
          if (!capture.changed) throw ran.error;
          const target = [args.spreadsheetId, args.fileId].find((value) => typeof value === 'string') ?? '';
          const change = recordCapture(journal, context.auth, tool.name, target.slice(0, 200), capture);
          throw withPartChange(ran.error, change);
        }
        const output = ran.result;
        if (output.structuredContent.dryRun === true) return output;
        // The file named in the call, else the one it made (create_spreadsheet, copy_spreadsheet).
        const made = output.structuredContent;
        const target =
          [args.spreadsheetId, args.fileId, made.spreadsheetId, made.fileId, made.id].find(
            (value): value is string => typeof value === 'string',
          ) ?? '';
        const change = recordCapture(journal, context.auth, tool.name, target.slice(0, 200), capture);
        return {
          structuredContent: { ...output.structuredContent, changeId: change.id },
          text: `${output.text}${changeNote(change.id, change.undoUnavailable)}`,
        };
      },
    };
  });
}

/**
 * The error of a call that failed after part of its change was made, naming that part's change. A
 * failure of the service's own (not a ToolError) is left as it is, to be logged; its change is in
 * the journal all the same.
 */
function withPartChange(error: unknown, change: { id: string; undoUnavailable?: string }): unknown {
  if (!(error instanceof ToolError)) return error;
  const undo = change.undoUnavailable ? ` ${change.undoUnavailable}` : ' undo_change can undo it.';
  const said = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  const part = new ToolError(`${said} Part of the change was made before that: change ${change.id}.${undo}`);
  part.cause = error;
  return part;
}

function recordCapture(
  journal: ChangeJournal,
  auth: AuthInfo,
  tool: string,
  spreadsheetId: string,
  capture: StateCapture,
): { id: string; undoUnavailable?: string } {
  const change = capture.unavailable ? undefined : capturedChange(capture);
  // Past the bounds before the images were compared: the entry names the ranges and cells it covered.
  const tooLarge = change
    ? tooLargeToCompare(change.footprint, change.before, change.after)
    : capture.tooLarge;
  if (!change || tooLarge) {
    // Every write of these tools goes through kit spreadsheetBatchUpdate: none sent, none made.
    const reason =
      tooLarge?.reason ?? capture.unavailable ?? `Nothing to undo: ${tool} sent Google no change.`;
    const id = journal.record(auth, {
      tool,
      spreadsheetId: change?.spreadsheetId ?? spreadsheetId,
      ranges: tooLarge?.ranges ?? [],
      cells: tooLarge?.cells ?? 0,
      rows: 0,
      undoUnavailableReason: reason,
    });
    return { id, undoUnavailable: reason };
  }
  const diff = stateDiff(change.before, change.after);
  const words = describeStateChange(change.before, change.after, tool, diff);
  const bytes = keptCellBytes(diff.cells);
  const undo =
    bytes > MAX_PAYLOAD_BYTES
      ? { undoUnavailableReason: tooLargeReason(words.cells, bytes) }
      : bounded(
          {
            v: 2,
            kind: 'state',
            footprint: change.footprint,
            ...changedParts(change.before, change.after, diff),
          },
          words.cells,
        );
  const id = journal.record(auth, {
    tool,
    spreadsheetId: change.spreadsheetId,
    ranges: words.ranges,
    cells: words.cells,
    rows: words.rows,
    summary: words.summary,
    ...undo,
  });
  return undo.undoUnavailableReason ? { id, undoUnavailable: undo.undoUnavailableReason } : { id };
}
