import { type GridBounds, gridBounds, splitRange } from './a1.ts';
import { firstVisibleTab } from './first-visible-tab.ts';

/** An A1 range read against a spreadsheet's tabs: the tab it names and its cells' bounds. */
export interface RangeOnTabs<Tab> {
  /** The tab name the range gives; undefined for bare cells. */
  sheetTitle: string | undefined;
  /** The cells after the tab name, `''` for a whole tab. */
  cells: string;
  /** The tab the range is on; undefined when it names none of them. */
  tab: Tab | undefined;
  /** The cells as zero-based, end-exclusive bounds; undefined when they are not A1 notation. */
  bounds: GridBounds | undefined;
}

/**
 * The tab an A1 range names and its cells, found as Sheets finds them: bare cells are on the first
 * visible tab, and a tab's name matches exactly, then ignoring case (as Google resolves A1 ranges). Each
 * tool family says in its own words what is wrong (no tab, not A1, off the grid) and sizes the
 * area its own way (clipped to the grid for reads, refused past it for writes).
 */
export function rangeOnTabs<Tab extends { title: string; hidden?: boolean | null | undefined }>(
  tabs: readonly Tab[],
  range: string,
): RangeOnTabs<Tab> {
  const { sheetTitle, cells } = splitRange(range);
  const tab =
    sheetTitle === undefined
      ? firstVisibleTab(tabs)
      : (tabs.find((each) => each.title === sheetTitle) ??
        tabs.find((each) => each.title.toLowerCase() === sheetTitle.toLowerCase()));
  return { sheetTitle, cells, tab, bounds: gridBounds(cells) };
}
