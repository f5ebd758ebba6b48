import type { sheets_v4 } from 'googleapis';
import {
  ALL_CELL_FIELDS,
  type CellAreaFootprint,
  type CellField,
  type DimensionFootprint,
  type Footprint,
  type SheetAspect,
} from './state-image.ts';

/** A field mask's top-level paths: `a,b.c,d(e,f)` → `a`, `b.c`, `d(e,f)`. */
export function topLevelFields(mask: string): string[] {
  const paths: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === '(') depth++;
    else if (mask[i] === ')') depth--;
    else if (mask[i] === ',' && depth === 0) {
      paths.push(mask.slice(start, i).trim());
      start = i + 1;
    }
  }
  paths.push(mask.slice(start).trim());
  return paths.filter((path) => path !== '');
}

/** The CellData fields a `fields` mask writes, or why undo cannot keep them. */
export function cellFields(mask: string | null | undefined): CellField[] | string {
  if (!mask) return [...ALL_CELL_FIELDS];
  const fields = new Set<CellField>();
  for (const path of topLevelFields(mask)) {
    const name = path.split(/[.(]/)[0]!;
    if (name === '*') return [...ALL_CELL_FIELDS];
    if (!(ALL_CELL_FIELDS as readonly string[]).includes(name))
      return `writes the cell field ${name}, which undo does not keep`;
    fields.add(name as CellField);
  }
  return [...fields];
}

export type Grid = sheets_v4.Schema$GridRange | null | undefined;

/** A footprint as the requests of one batch add to it (footprint-requests.ts). */
export class FootprintBuilder {
  readonly cells: CellAreaFootprint[] = [];
  readonly dimensions: DimensionFootprint[] = [];
  readonly aspects = new Map<number | 'any', Set<SheetAspect>>();
  allTabsCells: Set<CellField> | undefined;
  namedRanges = false;
  addsTabs = false;
  /** Tabs this batch adds with an id it chose: what it writes on them goes with the tab. */
  readonly addedIds = new Set<number>();

  area(range: Grid, fields: readonly CellField[]): void {
    if (!range || fields.length === 0) return;
    this.cells.push({
      sheetId: range.sheetId ?? 0,
      startRow: range.startRowIndex ?? 0,
      endRow: range.endRowIndex ?? undefined,
      startColumn: range.startColumnIndex ?? 0,
      endColumn: range.endColumnIndex ?? undefined,
      fields: [...fields],
    });
  }

  aspect(sheetId: number | null | undefined | 'any', ...aspects: SheetAspect[]): void {
    const key = sheetId === 'any' ? 'any' : (sheetId ?? 0);
    const set = this.aspects.get(key) ?? new Set();
    for (const aspect of aspects) set.add(aspect);
    this.aspects.set(key, set);
  }

  footprint(): Footprint {
    const kept = (sheetId: number | 'any') => sheetId === 'any' || !this.addedIds.has(sheetId);
    // Areas from one corner are one area (their union), as undo tells areas apart by corner.
    const areas = new Map<string, CellAreaFootprint>();
    const end = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? undefined : Math.max(a, b);
    for (const area of this.cells.filter((each) => kept(each.sheetId))) {
      const key = `${area.sheetId}:${area.startRow}:${area.startColumn}`;
      const same = areas.get(key);
      if (!same) areas.set(key, { ...area });
      else
        areas.set(key, {
          ...same,
          endRow: end(same.endRow, area.endRow),
          endColumn: end(same.endColumn, area.endColumn),
          fields: ALL_CELL_FIELDS.filter(
            (field) => same.fields.includes(field) || area.fields.includes(field),
          ),
        });
    }
    const dimensions = new Map<string, DimensionFootprint>();
    for (const span of this.dimensions.filter((each) => kept(each.sheetId))) {
      const key = `${span.sheetId}:${span.dimension}:${span.start}`;
      const same = dimensions.get(key);
      dimensions.set(key, same ? { ...same, end: Math.max(same.end, span.end) } : span);
    }
    return {
      cells: [...areas.values()],
      ...(this.allTabsCells
        ? { allTabsCells: ALL_CELL_FIELDS.filter((f) => this.allTabsCells?.has(f)) }
        : {}),
      dimensions: [...dimensions.values()],
      sheets: [...this.aspects]
        .filter(([sheetId]) => kept(sheetId))
        .map(([sheetId, aspects]) => ({ sheetId, aspects: [...aspects] })),
      namedRanges: this.namedRanges,
      addsTabs: this.addsTabs,
    };
  }
}
