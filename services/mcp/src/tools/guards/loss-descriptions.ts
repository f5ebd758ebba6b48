import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../errors/tool-error.ts';
import { gridBounds, normalizeRange, splitRange } from '../kit/a1.ts';
import { checkDimensionSpan } from '../kit/dimension-limits.ts';
import { firstVisibleTab } from '../kit/first-visible-tab.ts';
import { checkWithinGrid, noTabRefusal } from '../kit/range-refusals.ts';
import { type TabRef, tabOf } from '../kit/tab-ref.ts';
import type { ToolContext } from '../kit/tool-definition.ts';
import type { ToolDeps } from '../kit/tool-deps.ts';
import { type BatchLoss, batchLosses, gridArea, mayDestroy, wholeTab } from './batch-losses.ts';
import {
  amount,
  cellsOf,
  dimensionSpan,
  gridSize,
  listed,
  nonEmptyCount,
  quotedName,
  tabName,
} from './loss-phrases.ts';
import { type CellCount, lossReads, type Outline } from './loss-reads.ts';

/** A batch's sentence names at most this many of its losses, then how many more there are. */
const BATCH_LOSSES_NAMED = 10;

/**
 * The destructive tools' `describeLoss`: one sentence saying what the call would destroy, from
 * one spreadsheets.get and at most one values.batchGet (loss-reads.ts), with nothing changed.
 */
export function lossDescriptions(deps: ToolDeps) {
  const reads = lossReads(deps);

  const ofSpreadsheet = (outline: Outline) => `of ${quotedName(outline.title)}`;

  return {
    /** `Deletes the tab "Q3" of "Budget 2026": 1,200 rows × 26 columns, 4,312 non-empty cells.` */
    async sheetDeletion(input: { spreadsheetId: string; sheetId: TabRef }, context: ToolContext) {
      const outline = await reads.outline(input.spreadsheetId, context);
      const tab = tabOf(outline.tabs, input.sheetId);
      const [count] = await reads.count(input.spreadsheetId, [wholeTab(tab)], context);
      return `Deletes ${tabName(tab)} ${ofSpreadsheet(outline)}: ${gridSize(tab)}, ${nonEmptyCount(count!)}.`;
    },

    /** `Deletes rows 5–9 of the tab "Q3" of "Budget": 38 non-empty cells.` */
    async dimensionDeletion(
      input: {
        spreadsheetId: string;
        sheetId: TabRef;
        dimension: 'ROWS' | 'COLUMNS';
        startIndex: number;
        endIndex: number;
      },
      context: ToolContext,
    ) {
      const outline = await reads.outline(input.spreadsheetId, context);
      const tab = tabOf(outline.tabs, input.sheetId);
      checkDimensionSpan(tab, input, 'delete');
      const area =
        input.dimension === 'ROWS'
          ? gridArea(tab, { startRowIndex: input.startIndex, endRowIndex: input.endIndex })
          : gridArea(tab, { startColumnIndex: input.startIndex, endColumnIndex: input.endIndex });
      const [count] = await reads.count(input.spreadsheetId, [area], context);
      const span = dimensionSpan(input.dimension, input.startIndex, input.endIndex);
      return `Deletes ${span} of ${tabName(tab)} ${ofSpreadsheet(outline)}: ${nonEmptyCount(count!)}.`;
    },

    /** `Clears A1:C10 of the tab "Sheet1" of "Budget": 17 non-empty cells.`, or null for empty cells. */
    async clear(input: { spreadsheetId: string; range: string }, context: ToolContext) {
      const { sheetTitle, cells } = splitRange(input.range);
      const bounds = gridBounds(cells);
      if (!bounds)
        throw new ToolError(`cannot read the cells of ${JSON.stringify(input.range)} as A1 notation`);
      const outline = await reads.outline(input.spreadsheetId, context);
      // Sheets matches a range's tab name exactly first, then ignoring case.
      const tab =
        sheetTitle === undefined
          ? firstVisibleTab(outline.tabs)
          : (outline.tabs.find((each) => each.title === sheetTitle) ??
            outline.tabs.find((each) => each.title.toLowerCase() === sheetTitle.toLowerCase()));
      // Not a tab: Google may still know it as a named range, which this read cannot size. The
      // person is asked all the same, with what is known, rather than the call refused.
      if (!tab) {
        if (sheetTitle !== undefined && input.range.includes('!'))
          throw noTabRefusal(normalizeRange(input.range), sheetTitle, outline.tabs);
        return `Clears ${quotedName(input.range)} ${ofSpreadsheet(outline)} (its cells were not counted).`;
      }
      checkWithinGrid(tab, bounds, 'start');
      const [startRowIndex, endRowIndex] = ordered(bounds.startRowIndex, bounds.endRowIndex);
      const [startColumnIndex, endColumnIndex] = ordered(bounds.startColumnIndex, bounds.endColumnIndex);
      const area = gridArea(tab, { startRowIndex, endRowIndex, startColumnIndex, endColumnIndex });
      const [count] = await reads.count(input.spreadsheetId, [area], context);
      if (count!.complete && count!.nonEmpty === 0) return null;
      return `Clears ${cellsOf(area)} of ${tabName(tab)} ${ofSpreadsheet(outline)}: ${nonEmptyCount(count!)}.`;
    },

    /**
     * `In "Budget", this batch clears the values of A1:C10 of the tab "Q3" (17 non-empty cells) and …`,
     * or null when none of its requests destroys anything that exists now.
     */
    async batch(
      input: { spreadsheetId: string; requests: sheets_v4.Schema$Request[] },
      context: ToolContext,
    ) {
      if (!mayDestroy(input.requests)) return null;
      const outline = await reads.outline(input.spreadsheetId, context);
      const losses = batchLosses(input.requests, outline);
      const counted = losses.filter((loss) => loss.countable);
      const found = await reads.count(
        input.spreadsheetId,
        counted.map((loss) => loss.area),
        context,
      );
      const counts = new Map(counted.map((loss, index) => [loss, found[index]!] as const));
      // Clearing or replacing cells that hold nothing destroys nothing.
      const shown = losses.filter((loss) => {
        const count = counts.get(loss);
        return !count?.complete || count.nonEmpty > 0;
      });
      if (shown.length === 0) return null;
      const phrases = shown
        .slice(0, BATCH_LOSSES_NAMED)
        .map((loss) => batchLossPhrase(loss, counts.get(loss)));
      if (shown.length > BATCH_LOSSES_NAMED)
        phrases.push(`makes ${amount(shown.length - BATCH_LOSSES_NAMED, 'more such change')}`);
      return `In ${quotedName(outline.title)}, this batch ${listed(phrases)}.`;
    },
  };
}

function batchLossPhrase(loss: BatchLoss, count: CellCount | undefined): string {
  const what = `${loss.verb} the values of ${cellsOf(loss.area)} of ${tabName(loss.area.tab)}`;
  if (!count) return `${what} (as the requests before it leave it; not counted)`;
  return `${what} (${nonEmptyCount(count)})`;
}

/** A zero-based, end-exclusive span from A1 corners, which may come reversed (`B2:A1`). */
function ordered(
  start: number | undefined,
  end: number | undefined,
): [number | undefined, number | undefined] {
  return start !== undefined && end !== undefined && start >= end ? [end - 1, start + 1] : [start, end];
}
