/**
 * One live HyperFormula engine per spreadsheet, kept in step with what the spreadsheet holds
 * (README-sheets.md, "Formula engine lifecycle"). Building an engine reads and evaluates every
 * formula; a write usually changes a few cells, which the engine recalculates with what depends
 * on them. So each evaluation compares what the engine should hold — every tab's cells as engine
 * input, by the tab's title — with what it was last given, and sets only the cells that differ,
 * adding and removing tabs (a renamed tab is removed and added) and setting again every formula
 * that may name a tab when tabs come or go. An engine is built afresh when more cells differ than
 * setting them one by one saves (a row inserted moves every cell below it), or when the engine
 * refuses a change; what it holds is then always what a fresh build would hold.
 * A formula whose result does not follow from the spreadsheet's cells alone (IMPORTRANGE reads
 * another spreadsheet; NOW, TODAY and RAND change by themselves) is set again at every evaluation,
 * which recalculates it as a fresh build did.
 */
import type { ConfigParams, HyperFormula } from 'hyperformula';

export type EngineInput = string | number | boolean | null;

/** A tab as engine input: rows of cells, each a value or formula text, as far as its last value. */
export type TabInput = EngineInput[][];

interface LiveEngine {
  engine: HyperFormula;
  titles: string[];
  tabs: TabInput[];
}

/**
 * Past this many differing cells, and this share of all the cells, a fresh build is cheaper than
 * setting them one by one (each parsed and joined to the graph alone).
 */
const REBUILD_AT = 50;
const REBUILD_SHARE = 0.02;
/** Functions whose results do not follow from the spreadsheet's cells. */
const RECALCULATED_ALWAYS = /\b(?:IMPORTRANGE|NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY)\s*\(/i;
/** Engines kept, the most recently used; an older one is released. */
const ENGINES_KEPT = 8;

const engines = new Map<string, LiveEngine>();
/** How often engines were built and brought up to date in place, for tests to see which ran. */
const counts = { builds: 0, updates: 0 };

export function engineCounts(): Readonly<typeof counts> {
  return { ...counts };
}

/**
 * The spreadsheet's engine holding `tabs` (by `titles`, in tab order), evaluated. `build` makes a
 * fresh one; the engine stays this module's, to be read before the next call for the same key.
 */
export function syncedEngine(
  key: string,
  titles: string[],
  tabs: TabInput[],
  build: (sheets: Record<string, TabInput>, config: Partial<ConfigParams>) => HyperFormula,
): HyperFormula {
  const live = engines.get(key);
  engines.delete(key);
  let current = live && updated(live, titles, tabs) ? live : undefined;
  if (!current) {
    live?.engine.destroy();
    const sheets: Record<string, TabInput> = {};
    for (const [index, title] of titles.entries()) sheets[title] = tabs[index] ?? [];
    current = { engine: build(sheets, { undoLimit: 0 }), titles, tabs };
    counts.builds++;
  }
  current.titles = titles;
  current.tabs = tabs;
  engines.set(key, current);
  for (const [oldest, engine] of engines) {
    if (engines.size <= ENGINES_KEPT) break;
    engine.engine.destroy();
    engines.delete(oldest);
  }
  return current.engine;
}

/** Releases a spreadsheet's engine (it holds no formulas any more, or is gone). */
export function releaseEngine(key: string): void {
  engines.get(key)?.engine.destroy();
  engines.delete(key);
}

/**
 * Brings the engine to `tabs` cell by cell, with tabs added, removed and renamed (a title gone
 * where another came, at the same place); false when it should be built afresh instead.
 */
function updated(live: LiveEngine, titles: string[], tabs: TabInput[]): boolean {
  const renamed = new Map<string, string>();
  for (const [index, title] of titles.entries()) {
    const previous = live.titles[index];
    if (
      previous !== undefined &&
      previous !== title &&
      !titles.includes(previous) &&
      !live.titles.includes(title)
    )
      renamed.set(title, previous);
  }
  const before = new Map(live.titles.map((title, index) => [title, live.tabs[index] ?? []]));
  const removed = live.titles.filter(
    (title) => !titles.includes(title) && ![...renamed.values()].includes(title),
  );
  const added = titles.filter((title) => !before.has(title) && !renamed.has(title));
  // A formula naming a tab is read against the tabs there are when it is set (the engine would
  // carry a renamed tab's references along, where Sheets' formulas keep their text): with tabs
  // gone, come or renamed, every formula that may name one (with a `!`, INDIRECT's text
  // included) is set again.
  const tabsChanged = removed.length > 0 || added.length > 0 || renamed.size > 0;
  const changes: Array<[title: string, row: number, column: number, value: EngineInput]> = [];
  let cells = 0;
  for (const [index, tab] of tabs.entries()) {
    const title = titles[index] as string;
    const then = before.get(renamed.get(title) ?? title) ?? [];
    for (let row = 0; row < Math.max(tab.length, then.length); row++) {
      const cellsNow = tab[row] ?? [];
      const cellsThen = then[row] ?? [];
      cells += cellsNow.length;
      for (let column = 0; column < Math.max(cellsNow.length, cellsThen.length); column++) {
        const value = cellsNow[column] ?? null;
        if (
          value !== (cellsThen[column] ?? null) ||
          (typeof value === 'string' &&
            (RECALCULATED_ALWAYS.test(value) ||
              (tabsChanged && value.startsWith('=') && value.includes('!'))))
        )
          changes.push([title, row, column, value]);
      }
    }
  }
  if (changes.length === 0 && !tabsChanged) return true;
  if (changes.length > Math.max(REBUILD_AT, cells * REBUILD_SHARE)) return false;
  const { engine } = live;
  const sheetOf = (title: string) => {
    const sheet = engine.getSheetId(title);
    if (sheet === undefined) throw new Error(`no tab ${title} in the engine`);
    return sheet;
  };
  try {
    engine.batch(() => {
      for (const [title, previous] of renamed) engine.renameSheet(sheetOf(previous), title);
      for (const title of added) engine.addSheet(title);
      for (const [title, row, col, value] of changes)
        engine.setCellContents({ sheet: sheetOf(title), row, col }, value);
      // Last: HyperFormula cannot replace a formula that read a tab it has removed.
      for (const title of removed) engine.removeSheet(sheetOf(title));
    });
  } catch {
    // HyperFormula refuses some changes in place (a cell over its size limits); a fresh build
    // reports them as it always has.
    return false;
  }
  counts.updates++;
  return true;
}
