/** A tool's result as the host passes it on (ui/notifications/tool-result, and callServerTool's). */
export interface Result {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

/** One change of list_changes' answer (services/mcp/src/tools/sets/core-read/list-changes.ts). */
export interface Listed {
  changeId: string;
  at: string;
  credential: { kind: string; name: string };
  summary: string;
  undoable: boolean;
  undoneAt: string | null;
}

export type Shown = string | number | boolean | null;

/** read_change_cells' answer (services/mcp/src/tools/sets/core-read/change-cells.ts). */
export interface CellsAnswer {
  changeId: string | null;
  spreadsheetId: string;
  summary: string;
  undoable: boolean;
  undoneByChangeId: string | null;
  undoUnavailableReason: string | null;
  areas: string[];
  area: number | null;
  note: string | null;
  window: {
    range: string;
    top: number;
    left: number;
    areaColumns: number;
    before: Shown[][];
    after: Shown[][] | null;
    changed: Array<[number, number]>;
    changedSince: Array<[number, number]>;
    wrote: string | null;
    nextOffset: number | null;
    columnsCut: boolean;
  } | null;
}

/** A destructive call whose dry run read_change_cells shows: the tool and its own arguments. */
export interface Loss {
  tool: 'clear_range' | 'delete_dimension' | 'delete_sheet';
  [argument: string]: unknown;
}

export function resultText(result: Result): string {
  return (result.content ?? []).map((part) => part.text ?? '').join(' ');
}

/**
 * The loss of a dry run of clear_range, delete_dimension or delete_sheet, told by its answer's
 * shape (the view is not told which tool it shows), with the arguments read_change_cells takes.
 */
export function lossOf(answer: Record<string, unknown>, args: Record<string, unknown>): Loss | undefined {
  const tool =
    'clearedRange' in answer
      ? 'clear_range'
      : 'deletedSheetId' in answer
        ? 'delete_sheet'
        : 'deleted' in answer
          ? 'delete_dimension'
          : undefined;
  if (!tool) return undefined;
  const loss: Loss = { tool };
  for (const name of ['spreadsheetId', 'range', 'sheetId', 'dimension', 'startIndex', 'endIndex'])
    if (args[name] !== undefined) loss[name] = args[name];
  return loss;
}
