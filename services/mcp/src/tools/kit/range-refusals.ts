/**
 * Google's refusals of a range, said with the way out: a range naming no tab lists the tabs there
 * are (one read of them, made only then), and a write tool's range past a tab's grid names the
 * tools that add rows and columns. Wraps the value tools, whose ranges go to Google as written.
 */
import { ToolError } from '../../errors/tool-error.ts';
import { splitRange } from './a1.ts';
import { isPastGridError, isUnknownRangeError } from './page-window.ts';
import { readTabNames, tabList } from './tab-ref.ts';
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
    if (tool.scope === 'sheets:write' && isPastGridError(error))
      throw new ToolError(
        `${sentence(error)}. The tab has no cells there: append_rows adds rows after a table; insert_dimension adds rows or columns anywhere.`,
      );
    if (isUnknownRangeError(error) && typeof input.spreadsheetId === 'string')
      throw await unknownRange(deps, context, input.spreadsheetId, error);
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
  const what = range.includes('!') ? 'tab' : 'tab or named range';
  return new ToolError(
    `there is no ${what} named ${JSON.stringify(sheetTitle)} (in the range ${JSON.stringify(range)}); the tabs are ${tabList(tabs)}`,
  );
}
