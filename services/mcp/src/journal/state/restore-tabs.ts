import type { sheets_v4 } from 'googleapis';
import { part, placeTab, type RestoreContext, type RestorePart, tabSlot } from './restore-context.ts';
import type { Tab } from './state-diff.ts';
import { quoted, tabNamed } from './state-words.ts';

/**
 * Tabs the change added are deleted (last, when nothing else needs them); tabs it removed are
 * added back first, with their sheetId and properties, so the rest of the restore can fill them
 * (under `<title> (restored)` while another tab holds the title).
 * A chart's own tab is not: the chart comes back on a new one (restore-objects.ts).
 */
export function restoreTabs(context: RestoreContext): RestorePart[] {
  const parts: RestorePart[] = [];
  const chartsBefore = new Set(
    context.before.sheets.flatMap((sheet) => (sheet.charts ?? []).map((chart) => chart.chartId)),
  );
  for (const tab of context.added) {
    const name = tabNamed(context.titles(tab.sheetId));
    if (!context.existsNow(tab.sheetId)) continue; // named among the tabs gone since
    // A chart the change moved onto a tab of its own takes that tab with it when it moves back.
    const sheet = context.after.sheets.find((each) => each.sheetId === tab.sheetId);
    if (sheet?.charts?.some((chart) => chartsBefore.has(chart.chartId))) continue;
    parts.push(part('deleteTabs', [{ deleteSheet: { sheetId: tab.sheetId } }], [`delete ${name}`]));
  }
  for (const tab of context.removed) {
    const properties = context.before.sheets.find((sheet) => sheet.sheetId === tab.sheetId)?.properties;
    if (properties?.sheetType === 'OBJECT') continue;
    parts.push(...addBack(context, tab, properties));
  }
  return parts;
}

function addBack(
  context: RestoreContext,
  tab: Tab,
  properties: sheets_v4.Schema$SheetProperties | undefined,
): RestorePart[] {
  const name = tabNamed(tab.title);
  if (context.existsNow(tab.sheetId)) return [part('addTabs', [], [], [`${name} (there again)`])];
  const clash = (context.now.tabs ?? []).find(
    (other) => other.title.toLowerCase() === tab.title.toLowerCase() && other.sheetId !== tab.sheetId,
  );
  // A tab the change added under the same title is deleted last: the title is given back after.
  const byChange = clash !== undefined && context.added.some((each) => each.sheetId === clash.sheetId);
  const taken = clash !== undefined && !byChange;
  const title = clash ? `${tab.title} (restored)` : tab.title;
  const grid = properties?.gridProperties;
  const index = tabSlot(context, tab.sheetId) ?? properties?.index ?? 0;
  placeTab(context, tab.sheetId, index);
  const request: sheets_v4.Schema$Request = {
    addSheet: {
      properties: {
        sheetId: tab.sheetId,
        title,
        index,
        ...(grid
          ? {
              gridProperties: {
                rowCount: grid.rowCount,
                columnCount: grid.columnCount,
                frozenRowCount: grid.frozenRowCount ?? 0,
                frozenColumnCount: grid.frozenColumnCount ?? 0,
                hideGridlines: grid.hideGridlines ?? false,
              },
            }
          : {}),
        ...(properties?.hidden ? { hidden: true } : {}),
        ...(properties?.rightToLeft ? { rightToLeft: true } : {}),
        ...(properties?.tabColorStyle ? { tabColorStyle: properties.tabColorStyle } : {}),
      },
    },
  };
  if (byChange) {
    const retitle = { properties: { sheetId: tab.sheetId, title: tab.title }, fields: 'title' };
    return [
      part('addTabs', [request], [`add back ${name}`]),
      part('retitleTabs', [{ updateSheetProperties: retitle }], []),
    ];
  }
  return [
    part(
      'addTabs',
      [request],
      [taken ? `add back ${name} as ${quoted(title)}` : `add back ${name}`],
      taken ? [`a tab named ${quoted(tab.title)} exists now`] : [],
    ),
  ];
}
