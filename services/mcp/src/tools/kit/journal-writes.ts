import type { AuthInfo } from '../../auth/auth-info.ts';
import type { ChangeJournal } from '../../journal/change-journal.ts';
import { bounded } from '../../journal/change-payloads.ts';
import { changeNote } from '../../journal/record-change.ts';
import { capturedChange, runCapturing, type StateCapture } from '../../journal/state/state-capture.ts';
import { changedParts, describeStateChange } from '../../journal/state/state-describe.ts';
import { imageCells } from '../../journal/state/state-image-of.ts';
import type { ToolDefinition } from './tool-definition.ts';

/**
 * Journals every write tool that does not journal itself (docs/design.md §11.8): its call runs
 * inside a state capture, so each `spreadsheets.batchUpdate` it sends keeps what it changed
 * (journal/state/state-capture.ts), and a successful call that was not a dry run is recorded as
 * one change — with what undo needs, or, when nothing could be captured, why undo is not
 * available. Its answer names the change as the tools that journal themselves do: `changeId`
 * (defineTool adds it to the output schema) and the text's last sentence (changeNote). The
 * journal off: the tools are left as they are, and nothing more is read.
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
        const { result: output, capture } = await runCapturing(() => tool.run(input, context));
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

function recordCapture(
  journal: ChangeJournal,
  auth: AuthInfo,
  tool: string,
  spreadsheetId: string,
  capture: StateCapture,
): { id: string; undoUnavailable?: string } {
  const change = capture.unavailable ? undefined : capturedChange(capture);
  if (!change) {
    // Every write of these tools goes through kit spreadsheetBatchUpdate: none sent, none made.
    const reason = capture.unavailable ?? `Nothing to undo: ${tool} sent Google no change.`;
    const id = journal.record(auth, {
      tool,
      spreadsheetId,
      ranges: [],
      cells: 0,
      rows: 0,
      undoUnavailableReason: reason,
    });
    return { id, undoUnavailable: reason };
  }
  const words = describeStateChange(change.before, change.after, tool);
  const kept = changedParts(change.before, change.after);
  const undo = bounded(
    { v: 1, kind: 'state', footprint: change.footprint, before: kept.before, after: kept.after },
    imageCells(kept.before) + imageCells(kept.after),
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
