import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import type { ToolDeps } from '../../tools/kit/tool-deps.ts';
import type { ChangeJournal, ListedChange } from '../change-journal.ts';
import { bounded, type ChangePayload, MAX_PAYLOAD_BYTES, MAX_UNDO_CELLS } from '../change-payloads.ts';
import { UndoRefusal } from '../undo-refusal.ts';
import { writeWithImage } from './state-capture.ts';
import { areaCellCount } from './state-cells.ts';
import { changedParts, describeStateChange } from './state-describe.ts';
import { stateDiff } from './state-diff.ts';
import { ALL_CELL_FIELDS, type Footprint, type SheetAspect, type StateImage } from './state-image.ts';
import { imageCells } from './state-image-of.ts';
import { planState, readState, type TabGrid, tabGrids } from './state-read.ts';
import { restoreState } from './state-restore.ts';
import { pastTense, tabNamed } from './state-words.ts';

const TAB_ASPECTS: SheetAspect[] = [
  'properties',
  'merges',
  'conditionalFormats',
  'basicFilter',
  'filterViews',
  'protectedRanges',
  'charts',
  'bandedRanges',
  'tables',
];

/** A tab as the tabs' read gives it: an OBJECT tab (a chart's own) has no grid. */
type Tab = TabGrid & { grid: boolean };

/**
 * The undo of a structure change (docs/design.md §11.8): the parts the change could alter are read
 * as they are now (one read with its footprint; first the tabs when tabs come or go), compared
 * with what the change left (journal/state/state-restore.ts), refused naming what changed since
 * unless forced, and written back in one batchUpdate whose response is the undo's own after-image.
 * Tabs the change added are deleted, their cells kept in the undo's entry so that undoing the
 * undo brings them back — or, when they hold more than undo keeps, refused as changed since. The
 * undo is journaled with what it replaced (so undoing it redoes the change).
 */
export async function undoState(
  deps: ToolDeps & { journal: ChangeJournal },
  auth: AuthInfo,
  signal: AbortSignal,
  change: ListedChange,
  payload: Extract<ChangePayload, { kind: 'state' }>,
  options: { force: boolean; dryRun: boolean },
): Promise<{ restored: string[]; changedSince: string[]; text: string; undoId?: string }> {
  const { before, after } = payload;
  const was = new Set((before.tabs ?? []).map((tab) => tab.sheetId));
  const added = (after.tabs ?? []).filter((tab) => !was.has(tab.sheetId)).map((tab) => tab.sheetId);
  const footprint: Footprint = {
    ...payload.footprint,
    addsTabs: payload.footprint.addsTabs || added.length > 0,
  };
  const {
    image: now,
    tabs,
    read,
  } = await readNow(deps, auth.userId, signal, change.spreadsheetId, footprint, added);
  const restore = restoreState({ before, after }, now);
  const changedSince = [...restore.changedSince];
  // Cells of a tab the undo deletes are kept in its entry; past what an entry keeps, they would be lost.
  const heldByAdded = now.cells.filter((area) => added.includes(area.sheetId) && areaCellCount(area) > 0);
  if (
    heldByAdded.length > 0 &&
    (imageCells(now) > MAX_UNDO_CELLS || Buffer.byteLength(JSON.stringify(now)) > MAX_PAYLOAD_BYTES)
  )
    for (const area of heldByAdded)
      changedSince.push(
        `${tabNamed(area.sheet)} (it holds cells now, more than undo keeps to bring them back)`,
      );
  if (changedSince.length > 0 && !options.force)
    throw new UndoRefusal({ kind: 'changed_since', change, cells: changedSince });
  // What undo does, in words ("delete the chart …"); the ranges when nothing differs any more.
  const restored =
    restore.restored.length > 0 ? restore.restored : [`put back ${change.ranges.join(', ')} as it was`];
  if (options.dryRun)
    return {
      restored,
      changedSince,
      text: `Dry run: undoing change ${change.id} would ${restored.join('; ')}. Nothing was changed.`,
    };
  const deleted = new Set(
    restore.requests.flatMap((request) => (request.deleteSheet ? [request.deleteSheet.sheetId ?? 0] : [])),
  );
  // The undo's after-image: the same parts, without the tabs it deletes (no range can name them).
  const kept = withoutTabs(read, deleted);
  let undone: StateImage = now;
  if (restore.requests.length > 0) {
    const written = await writeWithImage(
      deps,
      auth.userId,
      signal,
      change.spreadsheetId,
      restore.requests,
      planState(kept),
      tabs.filter((tab) => !deleted.has(tab.sheetId)),
    );
    undone = written.after;
  }
  const diff = stateDiff(now, undone);
  const parts = changedParts(now, undone, diff);
  const words = describeStateChange(now, undone, undefined, diff);
  const undoId = deps.journal.record(auth, {
    tool: 'undo_change',
    spreadsheetId: change.spreadsheetId,
    ranges: words.ranges.length > 0 ? words.ranges : restored,
    cells: words.cells,
    rows: words.rows,
    summary: `undid change ${change.id}: ${words.summary}`.slice(0, 300),
    undoesChangeId: change.id,
    ...bounded(
      { v: 2, kind: 'state', footprint: read, before: parts.before, after: parts.after },
      words.cells,
    ),
  });
  return {
    restored,
    changedSince,
    undoId,
    text: `Undid change ${change.id}: ${restored.map(pastTense).join('; ')}.`,
  };
}

/**
 * The spreadsheet now, read with the change's footprint and, for each tab it added that is still a
 * grid, the whole tab (to keep what undo deletes). When tabs come or go the tabs are read first,
 * so parts of tabs gone since are not asked for (they are named as changed since); otherwise a
 * read refused for a tab gone since is followed by the tabs, then the read again without it.
 */
async function readNow(
  deps: ToolDeps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  footprint: Footprint,
  added: number[],
): Promise<{ image: StateImage; tabs: TabGrid[]; read: Footprint }> {
  const outline = async (): Promise<Tab[]> => {
    const { data } = await deps.callGoogle(userId, signal, (request) =>
      deps.sheets.spreadsheets.get(
        {
          spreadsheetId,
          fields: 'sheets.properties(sheetId,title,sheetType,gridProperties(rowCount,columnCount))',
        },
        request,
      ),
    );
    return tabGrids(data).map((tab, index) => ({
      ...tab,
      grid: data.sheets?.[index]?.properties?.sheetType !== 'OBJECT',
    }));
  };
  const attempt = async (known: Tab[] | undefined) => {
    const read = footprintNow(footprint, added, known);
    const { image, tabs } = await readState(deps, userId, signal, spreadsheetId, planState(read));
    // Every tab when they were read first: the undo's after-image then lists every tab too.
    const listed = known ?? tabs;
    return {
      image: { ...image, tabs: listed.map(({ sheetId, title }) => ({ sheetId, title })) },
      tabs: listed,
      read,
    };
  };
  if (footprint.addsTabs) return attempt(await outline());
  try {
    return await attempt(undefined);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    const known = await outline();
    const ids = new Set(known.map((tab) => tab.sheetId));
    if (footprintTabs(footprint).every((sheetId) => ids.has(sheetId))) throw error;
    return attempt(known);
  }
}

/** The footprint to read now: the change's, and every tab it added whole; without tabs gone since. */
function footprintNow(footprint: Footprint, added: number[], known: Tab[] | undefined): Footprint {
  const grids = added.filter((sheetId) => known?.find((tab) => tab.sheetId === sheetId)?.grid ?? true);
  const read: Footprint = {
    ...footprint,
    cells: [
      ...footprint.cells,
      ...grids.map((sheetId) => ({ sheetId, startRow: 0, startColumn: 0, fields: [...ALL_CELL_FIELDS] })),
    ],
    sheets: [...footprint.sheets, ...added.map((sheetId) => ({ sheetId, aspects: TAB_ASPECTS }))],
  };
  if (!known) return read;
  return withoutTabs(
    read,
    new Set(footprintTabs(read).filter((id) => !known.some((tab) => tab.sheetId === id))),
  );
}

const footprintTabs = (footprint: Footprint) => [
  ...new Set([
    ...footprint.cells.map((area) => area.sheetId),
    ...footprint.dimensions.map((span) => span.sheetId),
    ...footprint.sheets.flatMap((tab) => (tab.sheetId === 'any' ? [] : [tab.sheetId])),
  ]),
];

function withoutTabs(footprint: Footprint, tabs: ReadonlySet<number>): Footprint {
  return {
    ...footprint,
    cells: footprint.cells.filter((area) => !tabs.has(area.sheetId)),
    dimensions: footprint.dimensions.filter((span) => !tabs.has(span.sheetId)),
    sheets: footprint.sheets.filter((tab) => tab.sheetId === 'any' || !tabs.has(tab.sheetId)),
  };
}
