import { normalizeRange, rangeOnSheet, splitRange } from './a1.ts';
import { readTabGrids } from './table-area.ts';
import type { ToolDeps } from './tool-deps.ts';

/**
 * A bare text that Sheets reads as a cell (`A1`, `Q3`, `AB12`) may also be a tab's title, and a
 * read of it then means the tab: the tabs are read (one spreadsheets.get) only for such a text.
 * A bare name that cannot be cells (`BOM`, `R1C1`) is a tab's already (splitRange), and A1
 * helpers quote it when they send it: unquoted, Google reads `BOM` as a column and `R1C1` as a cell.
 */
export function mayBeTabTitle(range: string): boolean {
  const text = range.trim();
  return /^[A-Za-z0-9_]+$/.test(text) && splitRange(text).sheetTitle === undefined;
}

/** The ranges as read tools send them: normalized, and a bare cell that is a tab's title made that tab. */
export async function readableRanges(
  deps: ToolDeps,
  call: { userId: string; signal: AbortSignal; spreadsheetId: string },
  ranges: readonly string[],
): Promise<string[]> {
  const normalized = ranges.map(normalizeRange);
  if (!normalized.some(mayBeTabTitle)) return normalized;
  const tabs = await readTabGrids(deps, call.userId, call.signal, call.spreadsheetId);
  return normalized.map((range) => {
    if (!mayBeTabTitle(range)) return range;
    const tab =
      tabs.find((each) => each.title === range) ??
      tabs.find((each) => each.title.toLowerCase() === range.toLowerCase());
    return tab ? rangeOnSheet(tab.title) : range;
  });
}
