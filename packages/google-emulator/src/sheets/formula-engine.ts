/**
 * One live HyperFormula engine per spreadsheet, kept in step with what the spreadsheet holds
 * (README-sheets.md, "Formula engine lifecycle"). Building an engine reads and evaluates every
 * formula; a write usually changes a few cells, which the engine recalculates with what depends
 * on them. So each evaluation compares what the engine should hold — every tab's cells as engine
 * input, the tabs' titles in order — with what it was last given, and sets only the cells that
 * differ. An engine is built afresh when the tabs differ (added, removed, renamed, moved), when
 * more cells differ than recalculating them would save (a row inserted moves every cell below it),
 * or when the engine refuses a change; what it holds is then always what a fresh build would hold.
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
 * Past this many differing cells a fresh build is cheaper than setting them one by one, each
 * parsed and joined to the graph alone, a tenth of the cells at least.
 */
const REBUILD_AT = 50;
const REBUILD_SHARE = 0.02;
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

/** Brings the engine to `tabs` cell by cell; false when it should be built afresh instead. */
function updated(live: LiveEngine, titles: string[], tabs: TabInput[]): boolean {
  if (titles.length !== live.titles.length || titles.some((title, index) => title !== live.titles[index]))
    return false;
  const changes: Array<[sheet: number, row: number, column: number, value: EngineInput]> = [];
  let cells = 0;
  for (const [index, tab] of tabs.entries()) {
    const before = live.tabs[index] ?? [];
    const sheet = live.engine.getSheetId(titles[index] as string);
    if (sheet === undefined) return false;
    for (let row = 0; row < Math.max(tab.length, before.length); row++) {
      const now = tab[row] ?? [];
      const then = before[row] ?? [];
      cells += now.length;
      for (let column = 0; column < Math.max(now.length, then.length); column++) {
        const value = now[column] ?? null;
        if (
          value !== (then[column] ?? null) ||
          (typeof value === 'string' && RECALCULATED_ALWAYS.test(value))
        )
          changes.push([sheet, row, column, value]);
      }
    }
  }
  if (changes.length === 0) return true;
  if (changes.length > Math.max(REBUILD_AT, cells * REBUILD_SHARE)) return false;
  try {
    live.engine.batch(() => {
      for (const [sheet, row, col, value] of changes) live.engine.setCellContents({ sheet, row, col }, value);
    });
  } catch {
    // HyperFormula refuses some changes in place (a cell over its size limits); a fresh build
    // reports them as it always has.
    return false;
  }
  counts.updates++;
  return true;
}
