/**
 * Google's refusals of a range, said with the way out: a range naming no tab lists the tabs there
 * are (one read of them, made only then), a sheetId of no tab too, and a write tool's range past a
 * tab's grid names the tools that add rows and columns. Wraps the tools whose ranges or sheetIds go
 * to Google as given.
 */
import { ToolError } from '../../errors/tool-error.ts';
import { columnLetters, type GridBounds, rangeOnSheet, splitRange } from './a1.ts';
import { isPastGridError, isUnknownRangeError } from './page-window.ts';
import { rangeOnTabs } from './range-on-tabs.ts';
import { readTabNames, tabList, tabOf, titleTaken } from './tab-ref.ts';
import type { ToolContext, ToolDefinition } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** The same tools, each refusal of a range by Google said as `explained` says it. */
export function explainRangeRefusals(deps: ToolDeps, tools: ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => ({
    ...tool,
    run: (input, context) => explained(deps, tool, context, input, () => tool.run(input, context)),
    ...(tool.describeLoss
      ? {
          describeLoss: (input, context) =>
            explained(deps, tool, context, input, () => tool.describeLoss!(input, context)),
        }
      : {}),
  }));
}

async function explained<T>(
  deps: ToolDeps,
  tool: ToolDefinition,
  context: ToolContext,
  input: { spreadsheetId?: unknown },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const message = String((error as Error)?.message);
    if (tool.scope === 'sheets:write' && isPastGridError(error) && !message.endsWith(NO_CELLS_THERE))
      throw new ToolError(`${sentence(error)}. ${NO_CELLS_THERE}`);
    if (isUnknownRangeError(error) && typeof input.spreadsheetId === 'string')
      throw await unknownRange(deps, context, input.spreadsheetId, error);
    // What a dry run refuses before Google is said the same way when Google refuses it.
    const noGrid = /No grid with id: (\d+)/.exec(message);
    if (noGrid && typeof input.spreadsheetId === 'string')
      tabOf(await readTabNames(deps, context, input.spreadsheetId), Number(noGrid[1]));
    const taken = /A sheet with the name "(.*)" already exists/.exec(message);
    if (taken) throw new ToolError(titleTaken(taken[1]!));
    const span = /Invalid requests\[\d+\]\.(?:insert|delete)Dimension: (.*)$/s.exec(message);
    if (span) throw new ToolError(span[1]!);
    throw error;
  }
}

/** Google's message without our prefix or its full stop: `Range (Sheet1!A1001) exceeds grid limits. …` */
function sentence(error: unknown): string {
  return String((error as Error).message)
    .replace(/^Google refused the request: /, '')
    .replace(/\.+$/, '');
}

/** The tab a range Google could not parse names is not there: say which tabs are. */
async function unknownRange(
  deps: ToolDeps,
  context: ToolContext,
  spreadsheetId: string,
  error: unknown,
): Promise<ToolError> {
  const range = /Unable to parse range: (.*)$/s.exec(String((error as Error).message))?.[1]?.trim();
  if (range === undefined) return error as ToolError;
  const { sheetTitle } = splitRange(range);
  const tabs = await readTabNames(deps, context, spreadsheetId);
  const known = (title: string) => tabs.some((tab) => tab.title.toLowerCase() === title.toLowerCase());
  if (sheetTitle === undefined || known(sheetTitle)) return error as ToolError;
  return noTabRefusal(range, sheetTitle, tabs);
}

const NO_CELLS_THERE =
  'The tab has no cells there: append_rows adds rows after a table; insert_dimension adds rows or columns anywhere.';
/**
 * Refuses a range on a tab that is not there, before anything is written: one read of the tabs.
 * For a dry run, whose real call would learn it from Google's refusal. A bare name may be a named
 * range, which this read cannot see, so only a range naming a tab with `!` is refused.
 */
export async function checkRangeTab(
  deps: ToolDeps,
  context: ToolContext,
  spreadsheetId: string,
  range: string,
): Promise<void> {
  const { sheetTitle } = splitRange(range);
  if (sheetTitle === undefined || !range.includes('!')) return;
  const tabs = await readTabNames(deps, context, spreadsheetId);
  if (!rangeOnTabs(tabs, range).tab) throw noTabRefusal(range, sheetTitle, tabs);
}

/** The refusal of a range whose tab is not there, listing the tabs there are. */
export function noTabRefusal(
  range: string,
  sheetTitle: string,
  tabs: readonly { sheetId: number; title: string }[],
): ToolError {
  const what = range.includes('!') ? 'tab' : 'tab or named range';
  return new ToolError(
    `there is no ${what} named ${JSON.stringify(sheetTitle)} (in the range ${JSON.stringify(range)}); the tabs are ${tabList(tabs)}`,
  );
}

/**
 * Refuses, as Google does and in the words above, an area past a tab's grid: a value read or
 * clear that starts outside it (`reach: 'start'`; one that only ends outside is answered with what
 * is there), or a batchUpdate grid range that ends outside it (`reach: 'end'`). Open sides run to
 * the grid's end. So a dry run, which reads the tabs, says what the real call's Google would.
 */
export function checkWithinGrid(
  tab: { title: string; rows: number; columns: number },
  bounds: GridBounds,
  reach: 'start' | 'end',
): void {
  const top = bounds.startRowIndex ?? 0;
  const left = bounds.startColumnIndex ?? 0;
  const bottom = bounds.endRowIndex ?? tab.rows;
  const right = bounds.endColumnIndex ?? tab.columns;
  const past =
    reach === 'start' ? top >= tab.rows || left >= tab.columns : bottom > tab.rows || right > tab.columns;
  if (!past) return;
  const corner = (row: number, column: number) => `${columnLetters(column)}${row + 1}`;
  const single = bottom - top === 1 && right - left === 1;
  const cells = single ? corner(top, left) : `${corner(top, left)}:${corner(bottom - 1, right - 1)}`;
  throw new ToolError(
    `Range (${rangeOnSheet(tab.title, cells)}) exceeds grid limits. Max rows: ${tab.rows}, max columns: ${tab.columns}. ${NO_CELLS_THERE}`,
  );
}
