import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { updateCellsArea } from '../kit/written-area.ts';
import { batchChanges, maskCovers } from './batch-changes.ts';
import type { Area, Outline, Tab } from './loss-reads.ts';

/**
 * What a batch_update would destroy, request by request, against the spreadsheet as it is now:
 * `repeatCell` and `updateCells` whose fields include the cell value replace every value in the
 * range (or clear it, when no value is given); an `updateCells` from a `start` cell covers its
 * rows' extent from there (written-area.ts).
 *
 * batch_update refuses the kinds that delete tabs, rows or columns or shrink the grid (undo could
 * not take them back; journal/state/footprint.ts names the tools that do them). Of the kinds it
 * sends, the others change formats, borders, filters, tables or sizes, sort, or replace text a
 * person asked for by its words. `mergeCells` keeps only the top-left value of each block; it is
 * left out, a merge being what a person asks for by name. A loss in cells an earlier request of
 * the same batch changed (batch-changes.ts) is named "as the requests before it leave it" and not
 * counted: counting them as they are now would state a wrong number.
 */
export interface BatchLoss {
  verb: 'clears' | 'replaces';
  area: Area;
  countable: boolean;
}

/** Whether any request may destroy content: a batch without one costs no Google read to describe. */
export function mayDestroy(requests: readonly sheets_v4.Schema$Request[]): boolean {
  return requests.some((request, index) => lossOf(request, `requests[${index}]`) !== undefined);
}

export function batchLosses(requests: readonly sheets_v4.Schema$Request[], outline: Outline): BatchLoss[] {
  const losses: BatchLoss[] = [];
  const changes = batchChanges();
  requests.forEach((request, index) => {
    const loss = lossOf(request, `requests[${index}]`);
    // A tab this batch added held nothing before it: nothing of it is lost.
    if (loss && !changes.added(loss.sheetId)) {
      const tab = outline.tabs.find((each) => each.sheetId === loss.sheetId);
      if (!tab)
        throw new ToolError(
          `requests[${index}] names sheetId ${loss.sheetId}, and there is no tab with that id; get_spreadsheet lists the tabs`,
        );
      const area = gridArea(tab, loss.range);
      losses.push({ verb: loss.verb, area, countable: !changes.touches(area) });
    }
    changes.record(request);
  });
  return losses;
}

interface PendingLoss {
  sheetId: number;
  verb: BatchLoss['verb'];
  range: sheets_v4.Schema$GridRange;
}

function lossOf(request: sheets_v4.Schema$Request, where: string): PendingLoss | undefined {
  const number = (value: unknown, name: string) => wholeNumber(value, `${where}: ${name}`);
  const valueChange = request.repeatCell?.range
    ? {
        range: request.repeatCell.range,
        fields: request.repeatCell.fields,
        givesValues: request.repeatCell.cell?.userEnteredValue !== undefined,
      }
    : request.updateCells && updateCellsArea(request.updateCells)
      ? {
          range: updateCellsArea(request.updateCells)!.range,
          fields: request.updateCells.fields,
          givesValues: (request.updateCells.rows ?? []).some((row) =>
            (row.values ?? []).some((cell) => cell.userEnteredValue !== undefined),
          ),
        }
      : undefined;
  if (!valueChange || !maskCovers(valueChange.fields, 'userEnteredValue')) return undefined;
  const { sheetId, ...bounds } = valueChange.range;
  const range = Object.fromEntries(
    (['startRowIndex', 'endRowIndex', 'startColumnIndex', 'endColumnIndex'] as const).map((name) => [
      name,
      number(bounds[name], `range.${name}`),
    ]),
  );
  return {
    sheetId: number(sheetId, 'range.sheetId') ?? 0,
    verb: valueChange.givesValues ? 'replaces' : 'clears',
    range,
  };
}

/**
 * A sheetId, index or count of a request: a JSON number, or digits in a string as the API's JSON
 * reading accepts them; undefined when absent. Anything else is refused, so the sentence never
 * shows a number the request did not mean.
 */
function wholeNumber(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  throw new ToolError(`${what} must be a whole number of zero or more`);
}

export function wholeTab(tab: Tab): Area {
  return { tab, rowStart: 0, rowEnd: tab.rows, columnStart: 0, columnEnd: tab.columns };
}

/** A GridRange (open sides reach the grid's edges) inside the tab's grid. */
export function gridArea(tab: Tab, range: sheets_v4.Schema$GridRange): Area {
  const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);
  const rowStart = clamp(range.startRowIndex ?? 0, 0, tab.rows);
  const columnStart = clamp(range.startColumnIndex ?? 0, 0, tab.columns);
  return {
    tab,
    rowStart,
    rowEnd: clamp(range.endRowIndex ?? tab.rows, rowStart, tab.rows),
    columnStart,
    columnEnd: clamp(range.endColumnIndex ?? tab.columns, columnStart, tab.columns),
  };
}
