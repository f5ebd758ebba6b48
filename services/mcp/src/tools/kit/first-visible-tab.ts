/**
 * The tab a range without a tab name refers to, as Google resolves it: the first tab that is not
 * hidden. Google's A1 notation (Sheets API overview, "A1 notation",
 * https://developers.google.com/workspace/sheets/api/guides/concepts): "`A1:B2` refers to all the
 * cells in the first two rows and columns of the first visible sheet". Sizing such a range against
 * the first tab instead would describe, confirm or check cells Google does not write when that tab
 * is hidden. Every read of the tabs that feeds this asks for `hidden` (`TAB_PROPERTY_FIELDS`).
 */
export function firstVisibleTab<T extends { hidden?: boolean | null | undefined }>(
  tabs: readonly T[],
): T | undefined {
  // Google keeps at least one tab visible; should none be, the first is the best guess.
  return tabs.find((tab) => tab.hidden !== true) ?? tabs[0];
}

/** The tab properties a tool reads to find and size a range's tab: `sheets.properties(…)`'s list. */
export const TAB_PROPERTY_FIELDS = 'sheetId,title,hidden,gridProperties(rowCount,columnCount)';
