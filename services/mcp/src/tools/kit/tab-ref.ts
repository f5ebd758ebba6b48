/**
 * A tab named as people name it: a `sheetId` input (common-schemas.ts) is a tab's sheetId or its
 * name. One resolver, over the tabs a tool has read; a tool that reads none reads them only when
 * given a name.
 */
import { ToolError } from '../../errors/tool-error.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

/** What a `sheetId` input holds: a tab's sheetId, or its name. */
export type TabRef = number | string;

/** The error for a tab that is not there names at most this many of the tabs. */
const TABS_NAMED = 20;

/**
 * The tab `ref` names: a number by sheetId; text by name, exactly and then ignoring case (as Sheets
 * reads a tab name in A1), and text of digits that names no tab by sheetId. Refused, listing the
 * tabs there are, when none matches.
 */
export function tabOf<Tab extends { sheetId: number; title: string }>(
  tabs: readonly Tab[],
  ref: TabRef,
): Tab {
  const byId = (id: number) => tabs.find((tab) => tab.sheetId === id);
  let tab: Tab | undefined;
  if (typeof ref === 'number') tab = byId(ref);
  else {
    const lower = ref.toLowerCase();
    tab =
      tabs.find((each) => each.title === ref) ??
      tabs.find((each) => each.title.toLowerCase() === lower) ??
      (/^\d+$/.test(ref) ? byId(Number(ref)) : undefined);
  }
  if (tab) return tab;
  const which = typeof ref === 'number' ? `with sheetId ${ref}` : `named ${JSON.stringify(ref)}`;
  throw new ToolError(`there is no tab ${which}; the tabs are ${tabList(tabs)}`);
}

/**
 * Which tabs a list of every tab or one shows (common-schemas.ts perTabListInput): with no `ref`,
 * all; else only the tab it names, refused at once when there is none.
 */
export function listedTabs(
  tabs: readonly { sheetId: number; title: string }[],
  ref: TabRef | undefined,
): (sheetId: number) => boolean {
  if (ref === undefined) return () => true;
  const only = tabOf(tabs, ref).sheetId;
  return (sheetId) => sheetId === only;
}

/** The refusal of a tab name another tab has (Sheets compares tab names ignoring case). */
export function titleTaken(title: string): string {
  return `there is already a tab named ${JSON.stringify(title)}; tab names must differ (ignoring case)`;
}

/** Refuses `title` when a tab other than `except` (a sheetId) has it, as Google refuses it. */
export function checkTitleFree(
  tabs: readonly { sheetId: number; title: string }[],
  title: string,
  except?: number,
): void {
  const lower = title.toLowerCase();
  if (tabs.some((tab) => tab.sheetId !== except && tab.title.toLowerCase() === lower))
    throw new ToolError(titleTaken(title));
}

/** `"Plan" (sheetId 0), "Notes" (sheetId 7)`, the first TABS_NAMED and how many more. */
export function tabList(tabs: readonly { sheetId: number; title: string }[]): string {
  const named = tabs
    .slice(0, TABS_NAMED)
    .map((tab) => `${JSON.stringify(tab.title)} (sheetId ${tab.sheetId})`);
  const more = tabs.length > TABS_NAMED ? ` and ${tabs.length - TABS_NAMED} more` : '';
  return `${named.join(', ')}${more}`;
}

/** The tabs' ids, names and grid sizes: one spreadsheets.get. */
export async function readTabNames(
  { sheets, callGoogle }: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  spreadsheetId: string,
): Promise<Array<{ sheetId: number; title: string; rows: number; columns: number }>> {
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      { spreadsheetId, fields: 'sheets.properties(sheetId,title,gridProperties(rowCount,columnCount))' },
      request,
    ),
  );
  return (data.sheets ?? []).map((sheet) => ({
    sheetId: sheet.properties?.sheetId ?? 0,
    title: sheet.properties?.title ?? '',
    rows: sheet.properties?.gridProperties?.rowCount ?? 0,
    columns: sheet.properties?.gridProperties?.columnCount ?? 0,
  }));
}

/**
 * The input of a tool that has not read the tabs, with its `sheetId` a number: as given when it is
 * one (Google refuses a sheetId of no tab), else found by name after one read of the tabs. A dry
 * run, which Google does not see, reads the tabs for a number too, to refuse what Google would.
 */
export async function withSheetId<Input extends { spreadsheetId: string; sheetId: TabRef; dryRun?: boolean }>(
  deps: Pick<ToolDeps, 'sheets' | 'callGoogle'>,
  context: Pick<ToolContext, 'auth' | 'signal'>,
  input: Input,
): Promise<Input & { sheetId: number }> {
  if (typeof input.sheetId === 'number' && !input.dryRun) return input as Input & { sheetId: number };
  const tab = tabOf(await readTabNames(deps, context, input.spreadsheetId), input.sheetId);
  return { ...input, sheetId: tab.sheetId };
}
