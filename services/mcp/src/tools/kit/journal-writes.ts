import type { ChangeJournal } from '../../journal/change-journal.ts';
import type { ToolDefinition } from './tool-definition.ts';

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
    if (tool.scope !== 'sheets:write' || tool.journalsItself) return tool;
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
