import type { sheets_v4 } from 'googleapis';
import { restoreCells } from './restore-cells.ts';
import { goneTabWords, RESTORE_PHASES, restoreContext } from './restore-context.ts';
import { restoreDimensions } from './restore-dimensions.ts';
import { restoreObjects } from './restore-objects.ts';
import { restoreTabAspects } from './restore-tab-aspects.ts';
import { restoreTabs } from './restore-tabs.ts';
import { cellAreaDiffs, dimensionDiffs, objectDiffs } from './state-diff.ts';
import type { StateImage } from './state-image.ts';
import { capped } from './state-words.ts';

/** Cells named one by one in changedSince before the rest are counted. */
const CELLS_NAMED = 20;

/**
 * The undo of a structure change (docs/design.md §11.8), with no call to Google: what the change
 * altered (where `before` and `after` differ) is compared with `now` and written back to
 * `before`; everything else stays as it is now, a chart added since or a cell the change left
 * alone included.
 *
 * `changedSince` names, for a person or a model, each altered part that is no longer as the change
 * left it (the caller refuses unless forced); `restored` says what the requests do, each an action
 * ("delete the chart "Sales" (id 7) on the tab "Dashboard"", "rename the tab "Totals" back to
 * "Summary"", "put back the formats of Sheet1!A1:D1"), in the words undo-words.ts reads back from
 * the activity log's. The requests restore regardless, in an order Google accepts in one
 * batchUpdate.
 *
 * `now` is read with the change's footprint; it should list `tabs`, so that a tab deleted since
 * is told apart from one whose lists are empty now.
 */
export function restoreState(
  change: { before: StateImage; after: StateImage },
  now: StateImage,
): { requests: sheets_v4.Schema$Request[]; changedSince: string[]; restored: string[] } {
  const { before, after } = change;
  const context = restoreContext(before, after, now);
  const cells = restoreCells(cellAreaDiffs(before, after), context);
  const parts = [
    ...restoreTabs(context),
    ...cells.parts,
    ...restoreObjects(objectDiffs(before, after), context),
    ...restoreTabAspects(context),
    ...restoreDimensions(dimensionDiffs(before, after), context),
  ];
  const phase = (each: (typeof parts)[number]) => RESTORE_PHASES.indexOf(each.phase);
  const ordered = [...parts].sort((a, b) => phase(a) - phase(b));
  return {
    requests: ordered.flatMap((each) => each.requests),
    changedSince: [
      ...goneTabWords(context),
      ...capped(cells.changedCells, CELLS_NAMED, 'cell'),
      ...parts.flatMap((each) => each.changedSince),
    ],
    restored: parts.flatMap((each) => each.restored),
  };
}
